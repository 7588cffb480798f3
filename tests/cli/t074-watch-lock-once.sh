#!/bin/bash
# One watcher per state directory: a second one is refused with status 15 and names the
# process that holds the lock; once that one ends, another may start. --once makes one
# pass and exits; --dry-run says what it would do and orders nothing, writes nothing (no
# event, no state), and does not need the lock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

offer=$(ids_of 1)
inst=$(g launch "$offer" --env SIM_WORKLOAD=idle --label lonely) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g sim advance 2m

# A foreground watcher, one pass an hour: it holds the lock until it is killed.
"$GPURENT" watch --interval 1h >"$TMP/w1.out" 2>"$TMP/w1.err" &
w1=$!
CLEANUP_HOOKS+=("kill $w1 2>/dev/null; wait $w1 2>/dev/null")
for ((i = 0; i < 100; i++)); do
	[ "$(cat "$GPURENT_HOME"/*/watch.lock "$GPURENT_HOME"/watch.lock 2>/dev/null | head -1)" = "$w1" ] && break
	kill -0 "$w1" 2>/dev/null || fail "the first watcher ended: $(cat "$TMP/w1.err")"
	sleep 0.1
done
expect_rc 15 g watch --once
check "the second names the holder's pid: $ERR" '[[ $ERR == *"another watcher (pid $w1) holds"*watch.lock* ]]'
expect_rc 15 g watch
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
