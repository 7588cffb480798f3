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

# The job prints its last line once the test opens its gate: it runs for as long as the
# reads below take, however loaded the machine.
GATE=$TMP/gate
expect_ok g run --provider slurm --gpu h100 --detach -- \
	sh -c 'echo zero; echo first-line; '"$GATE_WAIT"'; echo "last-line $SLURM_JOB_ID"; exit 5' \
	sh "$GATE"
J=$OUT
JID=${J#slurm:}
JID=${JID%/0}
wait_job_state "$JID" RUNNING 40 || fail "the job never ran"
wait_until 100 '[ "$(wc -l <"$WORK/gpurent-$JID.out" 2>/dev/null)" = 2 ]' ||
	fail "the job did not print its first two lines"
expect_ok g logs "$J"
check "logs over ssh while it runs" '[ "$OUT" = "zero"$'"'"'\n'"'"'"first-line" ]'
expect_ok g logs "$J" --tail 1
check "--tail over ssh" '[ "$OUT" = first-line ]'
# --follow starts while the job runs (it has printed what there is) and the gate opens then.
g logs "$J" --follow >"$TMP/follow.out" 2>"$TMP/follow.err" &
FOLLOW=$!
CLEANUP_HOOKS+=("kill $FOLLOW 2>/dev/null")
wait_until 600 '[ "$(wc -l <"$TMP/follow.out")" = 2 ]' ||
	fail "--follow did not print the first two lines: $(cat "$TMP/follow.err")"
touch "$GATE"
wait_until 600 '! kill -0 $FOLLOW 2>/dev/null' || fail "--follow did not end with the job"
wait "$FOLLOW"
RC=$?
OUT=$(cat "$TMP/follow.out")
ERR=$(cat "$TMP/follow.err")
check "--follow exits with the job's status 5 (got $RC)" '[ "$RC" = 5 ]'
check "--follow to its end over ssh" \
	'[ "$OUT" = "zero"$'"'"'\n'"'"'"first-line"$'"'"'\n'"'"'"last-line $JID" ]'
# Once it ended, ssh no longer reaches it (the file is here, but without slurm.output_dir
# gpurent does not read it here): logs says to share the output directory.
expect_rc 1 g logs "$J"
check "says how to read it after the end" '[[ "$ERR" == *slurm.output_dir* ]]'
pass
