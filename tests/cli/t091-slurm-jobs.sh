#!/usr/bin/env bash
# Slurm jobs as instances on a real cluster: a holding job that runs its on-start command,
# its state through slurmrestd, a job that waits for GPUs with Slurm's reason, a two-node
# job, cancel as destroy, stop refused, and job names that are hostile or look like shell.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
. "$(dirname "$0")/sshd.sh"
start_slurm
JOBS=$TMP/slurm/jobs
expect_ok g config set slurm.workdir "$JOBS"

# A holding job: runs the on-start command (with the launch's environment), then holds.
expect_ok g launch slurm:gpu/h100 --count 2 --label train-a --wait --timeout 60 \
	--env GREETING=hello --onstart 'echo "$GREETING $SLURM_JOB_ID" > on-start.out'
A=$OUT
A_ID=${A#slurm:}
check "the id is slurm:JOBID" '[[ "$A" =~ ^slurm:[0-9]+$ ]]'
check "Slurm runs it" '[ "$(sl squeue -h -j "$A_ID" -o %T)" = RUNNING ]'
check "named by its label" '[ "$(sl squeue -h -j "$A_ID" -o %j)" = train-a ]'
check "holding 2 GPUs" '[ "$(sl squeue -h -j "$A_ID" -o %b)" = gres:gpu:h100:2 ]'
for ((i = 0; i < 40; i++)); do [ -s "$JOBS/on-start.out" ] && break; sleep 0.25; done
check "the on-start command ran in the job" '[ "$(cat "$JOBS/on-start.out")" = "hello $A_ID" ]'
expect_ok g show "$A" -o json
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
check "2 GPUs" '[ "$(jq -r .gpus <<<"$OUT")" = 2 ]'
check "ssh reaches the first node by its hostname" '[ "$(jq -r .ssh_host <<<"$OUT")" = localhost ]'
check "as the user" '[ "$(jq -r .ssh_user <<<"$OUT")" = root ]'
check "the partition as region" '[ "$(jq -r .region <<<"$OUT")" = gpu ]'
check "no price without a rate" '[ "$(jq -r .price_hour <<<"$OUT")" = null ]'

# slurm.ssh_host names the node another way (%n: the node's name).
expect_ok g config set slurm.ssh_host '%n.cluster.example'
expect_ok g show "$A" -o json
check "ssh_host from the template" '[ "$(jq -r .ssh_host <<<"$OUT")" = n1.cluster.example ]'
expect_ok g config unset slurm.ssh_host

# ssh reaches the job's node: a real sshd stands in for the node's (on its own port).
start_sshd
expect_ok g config set slurm.ssh_port "$SSHD_PORT"
expect_ok g ssh "$A" -- cat "$JOBS/on-start.out"
check "ssh ran on the job's node" '[ "$OUT" = "hello $A_ID" ]'
expect_ok g config unset slurm.ssh_port

# A two-node job holds four GPUs on each node.
expect_ok g launch slurm:gpu/h100 --count 4 --nodes 2 --label two-node --max-runtime 30m
B=$OUT
B_ID=${B#slurm:}
check "two nodes asked" '[ "$(sl squeue -h -j "$B_ID" -o %D)" = 2 ]'
check "with the time limit asked" '[ "$(sl squeue -h -j "$B_ID" -o %l)" = 30:00 ]'
# It cannot start while train-a holds two of n1's GPUs: PENDING, with Slurm's reason.
wait_job_state "$B_ID" PENDING 20 || fail "the two-node job is not pending"
for ((i = 0; i < 40; i++)); do
	[ "$(sl squeue -h -j "$B_ID" -o %r)" = Resources ] && break
	sleep 0.5
done
expect_ok g ls -o json
check "pending is provisioning" \
	'[ "$(jq -r ".[] | select(.id == \"$B\") | .state" <<<"$OUT")" = provisioning ]'
check "with Slurm's reason" \
	'[ "$(jq -r ".[] | select(.id == \"$B\") | .status" <<<"$OUT")" = "PENDING (Resources)" ]'
check "8 GPUs in all" '[ "$(jq -r ".[] | select(.id == \"$B\") | .gpus" <<<"$OUT")" = 8 ]'
expect_ok g show "$B"
check "show says the reason" '[[ "$OUT" == *"PENDING (Resources)"* ]]'
# --wait through PENDING ends at its timeout saying why it still waits (all eight GPUs,
# while train-a holds two: it cannot start, and nothing shorter can backfill it).
expect_rc 11 g launch slurm:gpu/h100 --count 4 --nodes 2 --label waiter --wait --timeout 2
check "launch --wait names the reason" '[[ "$ERR" == *"still provisioning (PENDING ("* ]]'
WAITER=$OUT

# Stop is honestly unsupported; destroy cancels.
expect_rc 12 g stop "$A"
check "a job can only be cancelled" '[[ "$ERR" == *"a Slurm job can only be cancelled"* ]]'
check "still running after the refused stop" '[ "$(sl squeue -h -j "$A_ID" -o %T)" = RUNNING ]'
expect_ok g destroy --yes "$A"
for ((i = 0; i < 40; i++)); do
	st=$(sl squeue -h -j "$A_ID" -o %T 2>/dev/null)
	[ -z "$st" ] || [ "$st" = CANCELLED ] && break
	sleep 0.25
done
check "cancelled in Slurm" '[ -z "$st" ] || [ "$st" = CANCELLED ]'
# With train-a gone, the two-node job gets both nodes.
wait_job_state "$B_ID" RUNNING 60 || fail "the two-node job never ran"
check "on n1 and n2" '[ "$(sl squeue -h -j "$B_ID" -o %N)" = "n[1-2]" ]'
expect_ok g ls -o json
check "ls no longer lists the cancelled job" \
	'[ -z "$(jq -r ".[] | select(.id == \"$A\") | .id" <<<"$OUT")" ]'
check "the two-node job runs" \
	'[ "$(jq -r ".[] | select(.id == \"$B\") | .state" <<<"$OUT")" = running ]'

# Hostile names: a job of the user's (found by gpurent's comment) named with escape
# sequences, submitted straight to slurmrestd, reaches no terminal; a label that looks like
# shell is only a name.
TOKEN=${SLURM_JWT#SLURM_JWT=}
curl -sf -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $TOKEN" \
	-H 'Content-Type: application/json' -X POST "$GPURENT_SLURM_URL/slurm/v0.0.38/job/submit" \
	-d '{"script":"#!/bin/sh\nexec sleep 600\n","job":{"name":"evil\u001b]0;owned\u0007\u001b[2Jname","partition":"short","comment":"gpurent","current_working_directory":"/tmp","environment":{"PATH":"/bin:/usr/bin"}}}' \
	>/dev/null || fail "could not submit the hostile job"
expect_ok g launch slurm:short/h100 --label '$(touch PWNED); `touch PWNED2`'
SHELLY=$OUT
expect_ok g ls
check "no escape or bell reaches ls" '! grep -q $'"'"'[\x07\x1b]'"'"' <<<"$OUT"'
check "the hostile name shows, stripped" '[[ "$OUT" == *evil* ]]'
expect_ok g ls -o json
check "JSON labels carry no control characters" \
	'[ "$(jq -r ".[].label" <<<"$OUT" | tr -d "[:print:]\n" | wc -c)" = 0 ]'
check "the shell-looking label is the job's name, verbatim" \
	'[ "$(sl squeue -h -j "${SHELLY#slurm:}" -o %j)" = '"'"'$(touch PWNED); `touch PWNED2`'"'"' ]'
check "and nothing ran it" '[ ! -e PWNED ] && [ ! -e PWNED2 ] && [ ! -e "$JOBS/PWNED" ]'

# A job of the user's that gpurent did not submit: only ls --all lists it.
PLAIN=$(sl sbatch --parsable -p short -J plain-sbatch -o /dev/null --wrap 'sleep 600') ||
	fail "sbatch failed"
expect_ok g ls -o ids
check "ls lists gpurent's jobs only" '! grep -qx "slurm:$PLAIN" <<<"$OUT"'
expect_ok g ls --all -o ids
check "ls --all lists every job of the user" 'grep -qx "slurm:$PLAIN" <<<"$OUT"'
check "gpurent's among them" 'grep -qx "$B" <<<"$OUT"'
expect_ok g ls -o ids
check "the next ls is gpurent's only again" '! grep -qx "slurm:$PLAIN" <<<"$OUT"'

# Ids that are no job.
expect_rc 3 g show slurm:99999
check "no such job" '[[ "$ERR" == *"slurm:99999"* ]]'
expect_rc 3 g show 'slurm:12;rm'
expect_ok g destroy --yes "$B" "$WAITER" "$SHELLY"
pass
