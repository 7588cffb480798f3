#!/bin/bash
# One watcher for the team (issue 31): three watchers on a team's store in PostgreSQL.
# Exactly one acts (the holder of the store's watcher lease); the others stand by and say
# so once per holder. The one acting is killed with SIGKILL by its notify.command right
# after its first stop order, before its second: another takes over within one interval,
# says the last one died and what it left, verifies that order and sends the other. Each
# instance is ordered stopped once, none is missed, and the third still stands by.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"
. "$(dirname "$0")/pg.sh"
unset GPURENT_SIM_TIME
export GPURENT_SIM_SPEED=60
I=4	# seconds between passes: a lease of 2, renewed every second, a look every second
start_pg
export GPURENT_STATE_URL=$GPURENT_TEST_PG_URL

two_idle
# Killed (SIGKILL) at the first stop order of all, as a crash would kill it.
at_first_stop KILL

expect_rc 3 g watch --status
check "none acts before any watcher: $ERR" '[[ $ERR == "gpurent: no watcher acts on this store" ]]'
pids=()
for n in 1 2 3; do
	"$GPURENT" watch --interval $I >"$TMP/w$n.out" 2>"$TMP/w$n.err" &
	pids+=($!)
	CLEANUP_HOOKS+=("kill ${pids[-1]} 2>/dev/null; wait ${pids[-1]} 2>/dev/null")
done
wait_until 100 '[ "$(g -o json watch --status | jq "map(.role) | sort | join(\",\")")" = "\"acting,standby,standby\"" ]' ||
	fail "not one acting and two standing by: $OUT $(cat "$TMP"/w*.err)"
holder=$(g -o json watch --status | jq -r '.[] | select(.role == "acting") | .holder')
first=${holder##*:}
check "exactly one acts: $holder, one of ${pids[*]}" '[[ " ${pids[*]} " == *" $first "* ]]'
for n in 1 2 3; do
	[ "${pids[n - 1]}" = "$first" ] && continue
	wait_until 50 "grep -q '^standing by: the watcher of $holder acts since ' '$TMP/w$n.out'" ||
		fail "watcher $n did not stand by: $(cat "$TMP/w$n.out")"
done

wait_until 200 '[ -e "$TMP/signalled/at" ]' || fail "no stop was ordered: $(cat "$TMP"/w*.out)"
check "the one killed is the one acting" '[ "$(cat "$TMP/signalled/pid")" = "$first" ]'
wait_until 100 'grep -q "watcher-died: the watcher of pid $first " "$TMP"/w*.out' ||
	fail "no takeover: $(cat "$TMP"/w*.out "$TMP"/w*.err)"
took=$((($(date +%s%N) - $(cat "$TMP/signalled/at")) / 1000000))
check "taken over ${took} ms after the kill, within one interval" '[ "$took" -le $((I * 1000)) ]'
next=$(grep -l "watcher-died" "$TMP"/w*.out)
check "by one watcher: $next" '[ "$(wc -l <<<"$next")" = 1 ]'
wait_until 50 'grep -q "info resumed .*: stop by pid $first (order 1, accepted) was in flight; verifying it" "$next"' ||
	fail "what was in flight is not reported: $(cat "$next")"

wait_until 300 '[ "$(count_events stop-verified "$a")" = 1 ] && [ "$(count_events stop-verified "$b")" = 1 ]' ||
	fail "not both verified: $(cat "$TMP"/w*.out)"
check "each ordered stopped once, by the two that acted" \
	'[ "$(count_events stop-ordered "$a")" = 1 ] && [ "$(count_events stop-ordered "$b")" = 1 ] &&
	 [ "$(cat "$TMP"/w*.out | grep -c "action stop-ordered")" = 2 ]'
check "both stopped" '[ "$(state_of "$a")" = stopped ] && [ "$(state_of "$b")" = stopped ]'
expect_ok g -o json watch --status
now=${next%.out}
now=${pids[${now##*w} - 1]}
check "the status names the new holder and the third standing by: $OUT" \
	'jq -e "length == 2 and (.[0] | .role == \"acting\" and (.holder | endswith(\":'$now'\"))) and .[1].role == \"standby\"" <<<"$OUT" >/dev/null'
for n in 1 2 3; do
	p=${pids[n - 1]}
	[ "$p" = "$first" ] || [ "$p" = "$now" ] || third=$n
done
check "the third stood by for each holder once: $(cat "$TMP/w$third.out")" \
	'[ "$(grep -c "^standing by: " "$TMP/w$third.out")" = 2 ] && [ "$(grep -vc "^standing by: " "$TMP/w$third.out")" = 0 ]'
pass
