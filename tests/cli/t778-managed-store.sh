#!/usr/bin/env bash
# run --managed --store ID:PATH keeps the checkpoints on another instance too, in PATH/JOB/,
# each put there under a temporary name and renamed once whole, the last two kept. The job
# loses its machine; meanwhile this machine's copies are lost as well (a controller that is
# not where the job began); the next attempt is restored from the store and the job
# finishes with every count once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/managed.sh"
managed_on_sshd

expect_rc 2 g run --store sim:i-000009:/x -- true
check "--store belongs to --managed" '[[ $ERR == *"belong to --managed"* ]]'
expect_rc 2 g run --managed --gpu h100 --checkpoint-dir ckpt --store sim:i-000009 -- true
check "--store wants ID:PATH" '[[ $ERR == *"ID:PATH"* ]]'
expect_rc 3 g run --managed --gpu h100 --checkpoint-dir ckpt --store sim:i-000009:/x -- true
check "an unknown store is refused before anything is rented ($ERR)" \
	'[[ $ERR == *"--store sim:i-000009"* ]] && [ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 0 ]'

expect_ok g offers type=on-demand gpu=h100 -o json
store=$(g launch "$(jq -r '.[0].id' <<<"$OUT")" --wait --timeout 60) || fail "no store instance"
kept="$TMP/kept/m1"

# Counts to 6, attempt 1 holding at 3.
touch "$TMP/gate.2"
run_counting --grace 5s --max-attempts 3 --store "$store:$TMP/kept"
newest() { cat "$(ls -d "$kept"/[0-9]* 2>/dev/null | tail -1)/out.txt" 2>/dev/null | wc -l; }
# Two checkpoints of 3 kept first, so that the last one (of 6) is at least the third.
seqs() { ls -d "$kept"/[0-9]* 2>/dev/null | wc -l; }
wait_until 400 '! kill -0 $ctl 2>/dev/null || { [ "$(newest)" = 3 ] && [ "$(seqs)" = 2 ]; }'
check "the store holds two checkpoints, the newest of 3 ($(cat "$TMP/ctl.err"))" \
	'[ "$(newest)" = 3 ] && [ "$(seqs)" = 2 ]'
expect_ok g jobs show m1 -o json
inst=$(jq -r '.[0].instance' <<<"$OUT")
run1=$(jq -r '.[0].job' <<<"$OUT")
expect_ok g sim preempt "$inst" --reason host-failure
kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")"
wait_until 400 '[ -e "$TMP/gate.2.held" ]' || fail "no second attempt: $(cat "$TMP/ctl.err")"
rm -rf "$GPURENT_HOME/jobs/m1/checkpoints"
rm -f "$TMP/gate.2"
counted_once
check "the store keeps the last two, none partial ($(ls -A "$kept" | tr '\n' ' '))" \
	'[ "$(ls -A "$kept" | grep -vc "^[0-9]\{6\}$")" = 0 ] && [ "$(ls "$kept" | wc -l)" = 2 ] &&
	[ "$(ls "$kept" | tail -1)" -gt 2 ] && [ "$(newest)" = 6 ]'
expect_ok g jobs show m1 -o json
log2="$HOME/.gpurent/jobs/$(jq -r '.[1].job' <<<"$OUT" | sed 's,.*/,,')/log"
check "attempt 2 was restored from the store's checkpoint of 3" '[ "$(cat "$log2")" = "attempt 2 from 3" ]'
check "the store instance was left alone" '[ "$(g show "$store" -o json | jq -r .state)" = running ]'
pass
