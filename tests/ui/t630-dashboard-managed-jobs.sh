#!/bin/bash
# t630: the jobs view (7) lists the managed jobs with their state, attempt, checkpoint age,
# recoveries, lost work, cost so far and machine; K on one asks, and yes cancels it through
# the engine: its controller pulls a last checkpoint, destroys the machine and ends it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
start_sshd
CLEANUP_HOOKS+=("close_masters")

# The job writes its checkpoint once, says so, and holds (at most 60 s); --every 1h leaves
# the cancel's pull the only one.
job='echo one >"$GPURENT_CHECKPOINT_DIR/out.txt"; touch "'"$T"'/reached"
w=0; while [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done'
"$G" run --managed --gpu h100 --checkpoint-dir ckpt --every 1h -- "$job" \
	>"$T/ctl.out" 2>"$T/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null")
run_of() { "$G" jobs show m1 -o json | jq -r '.[0].job // empty'; }
wait_until "[ -e '$T/reached' ] && [ -n \"\$(run_of)\" ]" 400 ||
	{ fail "the job did not start: $(cat "$T/ctl.err")"; finish; }
run=$(run_of)
# The simulator's destroy leaves the sshd host's processes: the test stops them.
CLEANUP_HOOKS+=("kill -KILL -- -$(cat "$HOME/.gpurent/jobs/${run##*/}/pid") 2>/dev/null")
inst=$("$G" jobs show m1 -o json | jq -r '.[0].instance')

start_dash 200 40
keys 7
# Attempt 1, no checkpoint yet (-), no recovery, nothing lost, on its machine.
wait_for "m1 +running +1 +- +0 +0s +\\\$[0-9.]+ +$inst( |\$)" 300 &&
	ok "the running job: attempt 1, no checkpoint, 0 recoveries, 0s lost, its cost, its machine" ||
	fail "running row: $(screen)"
keys K
wait_for "Cancel managed job m1 \(attempt 1, on $inst\)" 30 && ok "K asks first" ||
	fail "no confirmation: $(screen)"
keys y
wait_until "! kill -0 $ctl 2>/dev/null" 300 && ok "the controller ended the job" ||
	fail "the controller runs on: $(cat "$T/ctl.err")"
[ "$(cat "$GPURENT_HOME/jobs/m1/checkpoints/000001/out.txt" 2>/dev/null)" = one ] &&
	ok "a last checkpoint was pulled" || fail "no last checkpoint"
"$G" ls -o json | jq -e 'all(.[]; .state == "destroying")' >/dev/null &&
	ok "its machine is destroyed" || fail "machines: $("$G" ls)"
# The cost the ledger billed its one attempt, as 'gpurent jobs' shows it; the checkpoint
# was pulled in the round that ended the job: its age is 0s.
cost=$("$G" jobs show m1 -o json | jq -r '.[0].cost')
shown=$(printf '$%.4f' "$cost")
keys r
wait_for "m1 +cancelled +1 +0s +0 +0s +\\$shown +$inst +cancelled" 100 &&
	ok "cancelled: its checkpoint 0s old, its cost $shown the sum of its attempts" ||
	fail "cancelled row (want $shown): $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
