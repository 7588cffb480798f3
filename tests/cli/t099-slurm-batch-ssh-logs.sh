#!/usr/bin/env bash
# Without a shared slurm.output_dir, logs reads a batch job's output on its node over ssh
# (a real sshd stands in for the node's), following it to the job's end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
. "$(dirname "$0")/sshd.sh"
start_slurm
WORK=$TMP/slurm/jobs
expect_ok g config set slurm.workdir "$WORK"
start_sshd
expect_ok g config set slurm.ssh_port "$SSHD_PORT"

expect_ok g run --provider slurm --gpu h100 --detach -- \
	sh -c 'echo zero; echo first-line; sleep 10; echo "last-line $SLURM_JOB_ID"; exit 5'
J=$OUT
JID=${J#slurm:}
JID=${JID%/0}
wait_job_state "$JID" RUNNING 40 || fail "the job never ran"
for ((i = 0; i < 40; i++)); do
	[ "$(wc -l <"$WORK/gpurent-$JID.out" 2>/dev/null)" = 2 ] && break
	sleep 0.25
done
expect_ok g logs "$J"
check "logs over ssh while it runs" '[ "$OUT" = "zero"$'"'"'\n'"'"'"first-line" ]'
expect_ok g logs "$J" --tail 1
check "--tail over ssh" '[ "$OUT" = first-line ]'
expect_rc 5 g logs "$J" --follow
check "--follow to its end over ssh" \
	'[ "$OUT" = "zero"$'"'"'\n'"'"'"first-line"$'"'"'\n'"'"'"last-line $JID" ]'
# (The job sleeps long enough for the reads above even under ASan.)
# Once it ended, ssh no longer reaches it (the file is here, but without slurm.output_dir
# gpurent does not read it here): logs says to share the output directory.
expect_rc 1 g logs "$J"
check "says how to read it after the end" '[[ "$ERR" == *slurm.output_dir* ]]'
pass
