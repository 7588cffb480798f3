#!/usr/bin/env bash
# A batch job goes through the launch door like any launch, and gets its client token: an
# unnamed job is submitted to Slurm as gpurent-<token>, a name made for that request alone
# (as a holding job's is), so that a submit whose answer was lost is found again by it.
# Every unnamed batch job was "gpurent-launch" before, which told none of them apart.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs

# slurm_name JOB: the name Slurm holds for gpurent's job JOB (slurm:ID/0).
slurm_name() {
	local id=${1#slurm:}
	sl scontrol show job -o "${id%/0}" | grep -o 'JobName=[^ ]*' | cut -d= -f2
}

expect_ok g run --provider slurm --gpu h100 --detach -- true
A=$(slurm_name "$OUT")
expect_ok g run --provider slurm --gpu h100 --detach -- true
B=$(slurm_name "$OUT")
check "the first is named by a client token" '[[ "$A" =~ ^gpurent-[0-9a-f]{24}$ ]]'
check "the second too" '[[ "$B" =~ ^gpurent-[0-9a-f]{24}$ ]]'
check "a token of its own" '[ "$A" != "$B" ]'
expect_ok g run --provider slurm --gpu h100 --name mine --detach -- true
check "a named job keeps its name" '[ "$(slurm_name "$OUT")" = mine ]'
pass
