#!/usr/bin/env bash
# A managed job's controller killed with -9 in the middle of a recovery: attempt 2's machine
# rented but not yet recorded (a second controller meanwhile only watches). `gpurent watch`
# takes the job over (the lease's holder is dead), finds that machine instead of renting
# another, and finishes the job: exactly one more rental than the lost machine.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/managed.sh"
managed_on_sshd

# Attempt 1 holds at 3 until its machine is taken away.
touch "$TMP/gate.2"
run_counting
wait_until 400 '! kill -0 "$ctl" 2>/dev/null || [ "$(cat "$GPURENT_HOME"/jobs/m1/checkpoints/[0-9]*/out.txt 2>/dev/null | wc -l)" -ge 3 ]'
[ "$(cat "$GPURENT_HOME"/jobs/m1/checkpoints/[0-9]*/out.txt 2>/dev/null | wc -l)" -ge 3 ] ||
	fail "no checkpoint of 3 counts: $(cat "$TMP/ctl.err")"
# A second controller while the first lives only watches, and Ctrl-C leaves it the lease.
"$GPURENT" run --attach m1 >"$TMP/second.out" 2>"$TMP/second.err" &
second=$!
CLEANUP_HOOKS+=("kill $second 2>/dev/null")
wait_until 100 'grep -q "another controller drives m1; watching" "$TMP/second.err"' ||
	fail "a second controller did not stand aside: $(cat "$TMP/second.err")"
kill -INT "$second"
wait "$second"
RC=$?
check "the second controller detaches (130)" '[ "$RC" = 130 ]'
check "and did nothing" '! grep -q "^[a-z]* managed-" "$TMP/second.err"'
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
run1=$(jq -r '.[0].job' <<<"$OUT")
kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")"
expect_ok g destroy "$first" --yes
wait_until 300 '[ -e "$TMP/gate.2.held" ]' || fail "attempt 2 was not rented: $(cat "$TMP/ctl.err")"
{ kill -KILL "$ctl"; wait "$ctl"; } 2>/dev/null
rm -f "$TMP/gate.2"
check "one machine rented for attempt 2, not yet recorded" \
	'[ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 2 ] &&
	[ "$(g jobs show m1 -o json | jq -r ".[1].instance")" = null ]'

start_watch
wait_until 400 '[ "$(g jobs m1 -o json | jq -r ".[0].state")" = done ]' ||
	fail "the watcher did not finish the job: $(cat "$TMP/watch.out")"
kill "$watcher"
wait "$watcher" 2>/dev/null
check "no third machine: the watcher found attempt 2's" \
	'[ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 2 ]'
check "and said so" 'grep -q "found sim:i-" "$TMP/watch.out"'
check "every count once" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 6)" ]'
expect_ok g jobs show m1 -o json
check "two attempts, the second done" \
	'[ "$(jq -r "[length, .[1].why] | @tsv" <<<"$OUT")" = "2	done" ]'
pass
