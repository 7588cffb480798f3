#!/usr/bin/env bash
# A batch job on a real Slurm cluster: run --provider slurm submits the command itself (no
# holding job), its output comes back through logs (from slurm.output_dir, shared with the
# nodes), attached runs follow it to its end, and the job's exit status is gpurent's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs

# Detached: the job id, a Slurm batch job that runs the command (not a holding script).
expect_ok g run --provider slurm --gpu h100 --count 2 --name hello --detach -- \
	sh -c 'echo "hello from $SLURM_JOB_ID with $SLURM_JOB_GPUS"; echo to-stderr >&2'
J=$OUT
check "a job id slurm:JOBID/0" '[[ "$J" =~ ^slurm:[0-9]+/0$ ]]'
JID=${J#slurm:}
JID=${JID%/0}
check "named as asked" '[ "$(sl scontrol show job "$JID" | grep -o "JobName=[^ ]*")" = JobName=hello ]'
check "with two GPUs" 'sl scontrol show job "$JID" | grep -q "TresPerNode=gres:gpu:h100:2"'
check "its script is the command, no holding sleep" \
	's=$(sl scontrol write batch_script "$JID" -) && [[ $s == *"hello from"* && $s != *"sleep infinity"* ]]'
expect_ok g logs "$J" --follow
check "logs --follow prints the job's stdout" '[[ "$OUT" == *"hello from $JID"* ]]'
check "and its stderr" '[[ "$OUT" == *to-stderr* ]]'
expect_ok g logs "$J" --tail 1
check "--tail 1 is the last line" '[ "$OUT" = to-stderr ]'
expect_ok g jobs -o json
check "jobs lists it as exited 0" \
	'[ "$(jq -r ".[] | select(.id == \"$J\") | \"\(.state) \(.exit_code)\"" <<<"$OUT")" = "exited 0" ]'
check "with its command" \
	'[[ "$(jq -r ".[] | select(.id == \"$J\") | .command" <<<"$OUT")" == "sh -c "* ]]'

# Attached (the default): the output streams here and gpurent ends as the job did.
expect_rc 3 g run --provider slurm --gpu h100 -- sh -c 'echo before-exit; exit 3'
check "the attached run printed the output" '[[ "$OUT" == *before-exit* ]]'
check "and said which job" '[[ "$ERR" == *"batch job slurm:"*"submitted"* ]]'
expect_ok g jobs -o json
check "jobs records exit 3" \
	'[ "$(jq -r "[.[] | select(.exit_code == 3)] | length" <<<"$OUT")" = 1 ]'
# One word is a command line for sh, as for ssh jobs.
expect_ok g run --provider slurm --gpu h100 -- 'echo one-word | tr a-z A-Z'
check "one word runs as a shell command line" '[[ "$OUT" == *ONE-WORD* ]]'

# What belongs to instance jobs is refused for a batch job; a provider without batch jobs
# says so.
expect_rc 2 g run --provider slurm --gpu h100 --then destroy -- true
expect_rc 2 g run --provider slurm -- true
check "--gpu is asked for" '[[ "$ERR" == *"--gpu"* ]]'
expect_rc 2 g run sim:i-1 --nodes 2 -- true
# Slurm would expand a % in the output directory, so logs could not find the file.
expect_ok g config set slurm.output_dir "$OUTDIR/100%"
expect_rc 2 g run --provider slurm --gpu h100 --detach -- true
check "an output_dir with % is refused: $ERR" '[[ "$ERR" == *"slurm.output_dir must not contain"* ]]'
check "and nothing reached Slurm" 'q=$(sl squeue -h -o %i) && [ -z "$q" ]'
pass
