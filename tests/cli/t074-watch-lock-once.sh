#!/bin/bash
# One watcher acts per store, the holder of its lease (issue 31): a second --once is
# refused with status 15 and names the holder; a second foreground one stands by and says
# so once; once the first ends, another may act. --once makes one pass and exits; --dry-run
# says what it would do and orders nothing, writes nothing (no event, no state), and does
# not need the lease.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

offer=$(ids_of 1)
inst=$(g launch "$offer" --env SIM_WORKLOAD=idle --label lonely) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g sim advance 2m

# A foreground watcher, one pass an hour: it holds the lease until it is killed.
"$GPURENT" watch --interval 1h >"$TMP/w1.out" 2>"$TMP/w1.err" &
w1=$!
CLEANUP_HOOKS+=("kill $w1 2>/dev/null; wait $w1 2>/dev/null")
wait_until 100 '[[ $(g -o json watch --status 2>/dev/null | jq -r ".[0].holder") == *":$w1" ]]' ||
	fail "the first watcher took no lease: $(cat "$TMP/w1.err")"
expect_rc 15 g watch --once
check "the second names the holder's pid: $ERR" '[[ $ERR == *"another watcher ("*":$w1) holds the lease of this store since "* ]]'
# A second foreground one stands by (a minute between looks: it says so, and is ended).
"$GPURENT" watch --interval 4m >"$TMP/w2.out" 2>"$TMP/w2.err" &
w2=$!
CLEANUP_HOOKS+=("kill $w2 2>/dev/null; wait $w2 2>/dev/null")
wait_until 100 'grep -q "^standing by: the watcher of .*:$w1 acts since " "$TMP/w2.out"' ||
	fail "the second did not stand by: $(cat "$TMP/w2.out" "$TMP/w2.err")"
kill "$w2"
wait "$w2"
w2rc=$?
check "the one standing by ended cleanly on SIGTERM (status $w2rc), having said it once: $(cat "$TMP/w2.out")" \
	'[ "$w2rc" -eq 0 ] && [ "$(wc -l <"$TMP/w2.out")" -eq 1 ]'
# A dry run may look while the watcher runs.
expect_ok g watch --dry-run --once --interval 1m
kill "$w1"
wait "$w1"
w1rc=$?
check "the first ended cleanly on SIGTERM (status $w1rc)" '[ "$w1rc" -eq 0 ]'

# --once: one pass, then exit; the first idle sample (the killed watcher had one too).
expect_ok g watch --once --interval 5m
expect_ok g sim advance 10m
before=$(g -o json events | jq length)

# --dry-run at the moment it is due: says it, does nothing.
expect_ok g watch --dry-run --once --interval 5m
check "would stop: $OUT" '[[ $OUT == *"would: action stop-ordered $inst: stop (dry run: nothing sent)"* ]]'
check "would: and the observation behind it" '[[ $OUT == *"would: info idle $inst: GPU utilisation"* ]]'
check "still running" '[ "$(state_of "$inst")" = running ]'
check "no event written" '[ "$(g -o json events | jq length)" -eq "$before" ]'
expect_ok g watch --dry-run --once --interval 5m
check "a dry run again says the same (it recorded no order): $OUT" '[[ $OUT == *"would: action stop-ordered $inst"* ]]'

# The real one does it.
expect_ok g watch --once --interval 5m
check "ordered: $OUT" '[[ $OUT == *"action stop-ordered $inst"* && $OUT != *would* ]]'
check "stopping" '[ "$(state_of "$inst")" = stopping ]'
pass
