#!/usr/bin/env bash
# A budget refuses a Slurm launch and a Slurm batch job like any cloud launch (exit 9), and
# nothing reaches the cluster; --force submits all the same.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs
expect_ok g config set slurm.price.h100 3.60
expect_ok g config set budget.day 1

expect_rc 9 g run --provider slurm --gpu h100 --count 2 --detach -- true
check "the batch job is refused by budget.day" '[[ "$ERR" == *budget.day* ]]'
expect_rc 9 g launch slurm:gpu/h100 --count 4
check "so is a holding job" '[[ "$ERR" == *budget.day* ]]'
check "nothing reached Slurm" 'q=$(sl squeue -h -o %i) && [ -z "$q" ]'
expect_ok g jobs -o json
check "no job recorded" '[ "$(jq length <<<"$OUT")" = 0 ]'

expect_ok g run --provider slurm --gpu h100 --count 2 --force --detach -- true
check "--force submits past the budget" '[[ "$OUT" =~ ^slurm:[0-9]+/0$ ]]'
expect_ok g config unset budget.day
expect_ok g config set budget.month 100000
expect_ok g run --provider slurm --gpu h100 -- echo within-budget
check "within the budget it runs" '[ "$OUT" = within-budget ]'
pass
