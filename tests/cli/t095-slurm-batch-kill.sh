#!/usr/bin/env bash
# kill cancels a batch job through slurmrestd; jobs then shows it killed, logs --follow
# ends, and a second kill is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs

expect_ok g run --provider slurm --gpu h100 --detach -- sh -c 'echo started; exec sleep 600'
J=$OUT
JID=${J#slurm:}
JID=${JID%/0}
wait_job_state "$JID" RUNNING 40 || fail "the job never ran"
expect_ok g jobs -o json
check "running" '[ "$(jq -r ".[0].state" <<<"$OUT")" = running ]'
expect_ok g kill "$J"
check "kill prints the job" '[ "$OUT" = "$J" ]'
for ((i = 0; i < 40; i++)); do
	st=$(sl squeue -h -j "$JID" -o %T 2>/dev/null)
	[ -z "$st" ] || [ "$st" = CANCELLED ] && break
	sleep 0.25
done
check "cancelled in Slurm" '[ -z "$st" ] || [ "$st" = CANCELLED ]'
expect_ok g jobs -o json
check "jobs says killed" '[ "$(jq -r ".[0].state" <<<"$OUT")" = killed ]'
expect_rc 143 g logs "$J" --follow
check "the output up to the kill" '[[ "$OUT" == *started* ]]'
expect_rc 13 g kill "$J"
check "a second kill says it is not running" '[[ "$ERR" == *"not running"* ]]'
expect_rc 3 g kill slurm:99999/0
pass
