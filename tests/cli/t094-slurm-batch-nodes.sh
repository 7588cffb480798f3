#!/usr/bin/env bash
# A two-node batch job: srun starts the command once on each node with what distributed
# training reads (MASTER_ADDR the first node, MASTER_PORT, WORLD_SIZE, NODE_RANK).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs

expect_ok g run --provider slurm --gpu h100 --count 4 --nodes 2 --max-runtime 10m -- \
	sh -c 'echo "rank=$NODE_RANK of=$WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT on=$SLURMD_NODENAME"'
check "one line per node" '[ "$(grep -c "^rank=" <<<"$OUT")" = 2 ]'
check "rank 0 on n1" 'grep -qx "rank=0 of=2 master=n1:29500 on=n1" <<<"$OUT"'
check "rank 1 on n2, the same master" 'grep -qx "rank=1 of=2 master=n1:29500 on=n2" <<<"$OUT"'
expect_ok g jobs -o json
J=$(jq -r '.[0].id' <<<"$OUT")
JID=${J#slurm:}
JID=${JID%/0}
check "Slurm ran it on both nodes" '[ "$(sl scontrol show job "$JID" | grep -o " NodeList=[^ ]*")" = " NodeList=n[1-2]" ]'
check "with the time limit asked" 'sl scontrol show job "$JID" | grep -q "TimeLimit=00:10:00"'

# --env MASTER_PORT moves the port. A failing rank fails the job with its own status:
# srun stops the rank still running (here rank 0, busy for 20 s), and that rank's SIGTERM
# is not the job's exit status (it was 143 whenever rank 0 was still running). Slurm signals
# a task's descendants before the task: the sleep dies first, so "finished" is said only
# if the sleep ran out (&&), not by the shell in the moment before its own signal.
expect_rc 7 g run --provider slurm --gpu h100 --nodes 2 --env MASTER_PORT=12345 -- \
	sh -c 'echo "port=$MASTER_PORT"; [ "$NODE_RANK" = 0 ] || exit 7; sleep 20 && echo rank0-finished'
check "the port from --env" '[ "$(grep -c "^port=12345$" <<<"$OUT")" -ge 1 ]'
check "srun stopped rank 0" '! grep -q rank0-finished <<<"$OUT"'

# Stopped from outside (as the time limit or preemption stops it: SIGTERM to the script and
# every rank), the job is not a success although each rank's wrapper exits 0 on SIGTERM.
expect_ok g run --provider slurm --gpu h100 --nodes 2 --detach -- sh -c 'echo started; sleep 300'
JID=${OUT#slurm:}
JID=${JID%/0}
wait_job_state "$JID" RUNNING 60 || fail "the job never ran"
wait_until 600 '[ "$(grep -c "^started$" "$OUTDIR/gpurent-$JID.out" 2>/dev/null)" = 2 ]' ||
	fail "the ranks never started"
sl scancel --full --signal=TERM "$JID" || fail "scancel"
wait_until 600 '[ -z "$(sl squeue -h -j "$JID" 2>/dev/null)" ]' || fail "the job did not end"
expect_ok g jobs -o json
check "a job stopped by SIGTERM exits 143, not 0" \
	'jq -e ".[] | select(.id == \"slurm:$JID/0\") | .exit_code == 143" <<<"$OUT" >/dev/null'
pass
