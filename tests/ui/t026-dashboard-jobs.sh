#!/bin/bash
# t026: the instances view counts each instance's running jobs (gpurent run, against a
# real sshd) in its JOBS column, and J lists the instance's jobs with their state.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$("$G" launch "$("$G" offers type=on-demand -o ids -n 1)" --wait --timeout 60)
[[ $id == sim:i-* ]] || { fail "launch: $id"; finish; }
job=$("$G" run "$id" --detach --name 'trainer' -- sleep 300)
jpid=$(cat "$HOME/.gpurent/jobs/${job##*/}/pid")
CLEANUP_HOOKS+=("kill -KILL -- -$jpid 2>/dev/null")
"$G" run "$id" -- 'exit 0' >/dev/null 2>&1 || fail "the second job did not run"

start_dash 160 40
keys 2
wait_for "^  $id .*running +1 " 100 && ok "JOBS counts the running job" ||
	fail "jobs column: $(screen)"
screen | grep -q ' JOBS ' && ok "the column is headed JOBS" || fail "header: $(screen)"
keys J
wait_for "Jobs on $id" 30 && ok "J opens the job list" || fail "no list: $(screen)"
wait_for "$job +running +trainer" 10 && ok "the running job, with its name" ||
	fail "running job: $(screen)"
wait_for "$id/2 +exited 0" 10 && ok "the ended job, with its status" || fail "ended: $(screen)"
keys q
"$G" kill "$job" --grace 1 >/dev/null 2>&1 || fail "kill failed"
wait_for "^  $id .*running +0 " 150 && ok "the count follows the kill" ||
	fail "after kill: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
