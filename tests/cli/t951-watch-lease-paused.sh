#!/bin/bash
# Two watchers on one person's SQLite store (issue 31): one acts, the other stands by. The
# one acting is paused (SIGSTOP) by its notify.command right after its first stop order,
# before its second: its lease lapses and the other takes over within one interval, says
# so, verifies the first order and sends the second. Woken (SIGCONT) in the middle of its
# pass, the first finds it lost the lease before it orders, writes or says anything more,
# and stands by. Each instance is ordered stopped once, and both are stopped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"
unset GPURENT_SIM_TIME
export GPURENT_SIM_SPEED=60
I=4	# seconds between passes: a lease of 2, renewed every second, a look every second

two_idle
# Paused (SIGSTOP) at the first stop order of all, as a laptop's lid would pause it.
at_first_stop STOP

"$GPURENT" watch --interval $I >"$TMP/w1.out" 2>"$TMP/w1.err" &
w1=$!
CLEANUP_HOOKS+=("kill -CONT $w1 2>/dev/null; kill $w1 2>/dev/null; wait $w1 2>/dev/null")
wait_until 100 '[[ $(g -o json watch --status 2>/dev/null | jq -r ".[0].holder") == *":$w1" ]]' ||
	fail "the first watcher took no lease: $(cat "$TMP/w1.err")"
"$GPURENT" watch --interval $I >"$TMP/w2.out" 2>"$TMP/w2.err" &
w2=$!
CLEANUP_HOOKS+=("kill $w2 2>/dev/null; wait $w2 2>/dev/null")
wait_until 100 'grep -q "^standing by: the watcher of .*:$w1 acts since " "$TMP/w2.out"' ||
	fail "the second did not stand by: $(cat "$TMP/w2.out" "$TMP/w2.err")"

# watch --status: who acts, since when, until when, and who stands by.
wait_until 50 '[ "$(g -o json watch --status | jq length)" = 2 ]' || fail "no standby listed: $OUT"
expect_ok g -o json watch --status
check "the holder acts, with its since and expiry: $OUT" \
	'jq -e ".[0] | .role == \"acting\" and (.holder | endswith(\":'$w1'\")) and
		(.since | test(\"^20..-..-..T..:..:..Z$\")) and .expires >= .since and .seen == null" <<<"$OUT" >/dev/null'
check "and the standby, seen: $OUT" \
	'jq -e ".[1] | .role == \"standby\" and (.holder | endswith(\":'$w2'\")) and .since == null and .expires == null and (.seen | type) == \"string\"" <<<"$OUT" >/dev/null'
expect_ok g watch --status
check "as a table too: $OUT" '[[ $OUT == *acting*":$w1"* && $OUT == *standby*":$w2"* ]]'

wait_until 200 '[ -e "$TMP/signalled/at" ]' ||
	fail "no stop was ordered: $(cat "$TMP/w1.out" "$TMP/w1.err")"
check "the one paused is the one acting" '[ "$(cat "$TMP/signalled/pid")" = "$w1" ]'
# Taken over once its lease lapsed: within one interval of the pause (4000 ms).
wait_until 100 'grep -q "watcher-died: the watcher .*:$w1 let its lease lapse at " "$TMP/w2.out"' ||
	fail "no takeover: $(cat "$TMP/w2.out" "$TMP/w2.err")"
took=$((($(date +%s%N) - $(cat "$TMP/signalled/at")) / 1000000))
check "taken over ${took} ms after the pause, within one interval" '[ "$took" -le $((I * 1000)) ]'
kill -CONT "$w1"
wait_until 100 'grep -q "^standing by: the watcher of .*:$w2 acts since " "$TMP/w1.out"' ||
	fail "the first did not stand by once woken: $(cat "$TMP/w1.out" "$TMP/w1.err")"

wait_until 300 '[ "$(count_events stop-verified "$a")" = 1 ] && [ "$(count_events stop-verified "$b")" = 1 ]' ||
	fail "not both verified: $(cat "$TMP/w1.out" "$TMP/w2.out")"
check "each ordered stopped once" \
	'[ "$(count_events stop-ordered "$a")" = 1 ] && [ "$(count_events stop-ordered "$b")" = 1 ]'
check "the first ordered one, the second the other: $(cat "$TMP/w1.out")" \
	'[ "$(grep -c stop-ordered "$TMP/w1.out")" = 1 ] && [ "$(grep -c stop-ordered "$TMP/w2.out")" = 1 ]'
check "the first said nothing after it woke but that it stands by: $(cat "$TMP/w1.out")" \
	'[[ $(tail -n 1 "$TMP/w1.out") == "standing by: "* ]]'
check "and wrote no event: it journalled one stop order and nothing since" \
	'[ "$(g -o json events | jq "[.[] | select(.kind == \"stop-ordered\" or .kind == \"idle\")] | length")" = 4 ]'
kill "$w1" "$w2"
wait "$w1" "$w2"
expect_rc 3 g -o json watch --status
check "none acts once both ended: $OUT" '[ "$OUT" = "[]" ]'
pass
