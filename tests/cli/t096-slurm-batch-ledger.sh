#!/usr/bin/env bash
# Costs of batch jobs from Slurm's own times: the ledger bills a priced job's GPUs from the
# start time Slurm reports to its end time, whenever gpurent looks (late, or only after the
# job ended), and costs --by provider counts it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs
expect_ok g config set slurm.price.h100 3.60

# Slurm's StartTime or EndTime of a job, in UTC seconds.
slurm_time() {
	date -d "$(sl scontrol show job "$1" | grep -o " $2=[^ ]*" | cut -d= -f2)" +%s
}
job_num() {
	local id=${1#slurm:}
	echo "${id%/0}"
}
gone_or_done() {
	local st
	st=$(sl squeue -h -j "$1" -o %T 2>/dev/null)
	[ -z "$st" ] || [ "$st" = COMPLETED ]
}
wait_done() {
	local i
	for ((i = 0; i < 60; i++)); do gone_or_done "$1" && return 0; sleep 0.5; done
	return 1
}
ledger() {
	sqlite3 "$DB" "SELECT $2 FROM ledger WHERE instance_id = 'slurm:$1' AND kind = 0"
}

# Seen only after it ended: one compute segment from Slurm's start to Slurm's end.
expect_ok g run --provider slurm --gpu h100 --count 2 --detach -- sleep 3
A=$(job_num "$OUT")
wait_done "$A" || fail "job $A did not end"
# gpurent looks at least 2 s after the end, so that an end taken from its own clock differs.
wait_until 100 '[ "$(date +%s)" -ge $(($(slurm_time "$A" EndTime) + 2)) ]' ||
	fail "the clock did not pass job $A's end"
expect_ok g jobs
check "one compute segment" '[ "$(ledger "$A" "count(*)")" = 1 ]'
check "from Slurm's start time" '[ "$(ledger "$A" start_ts)" = "$(slurm_time "$A" StartTime)" ]'
check "to Slurm's end time" '[ "$(ledger "$A" end_ts)" = "$(slurm_time "$A" EndTime)" ]'
check "at the rate of two GPUs" '[ "$(ledger "$A" rate_hour)" = 7200000 ]'
check "at least the 3 s it ran" '[ "$(ledger "$A" "end_ts - start_ts")" -ge 3 ]'

# First seen running, late: the segment still starts when Slurm started it. The job runs
# until the test opens its gate, however slowly a loaded machine gets to the checks.
GATE_B=$TMP/gate-b
expect_ok g run --provider slurm --gpu h100 --detach -- sh -c "$GATE_WAIT" sh "$GATE_B"
B=$(job_num "$OUT")
wait_job_state "$B" RUNNING 40 || fail "job $B never ran"
wait_until 100 '[ "$(date +%s)" -ge $(($(slurm_time "$B" StartTime) + 2)) ]' ||
	fail "the clock did not pass job $B's start"
expect_ok g jobs
check "open while it runs" '[ "$(ledger "$B" end_ts)" = 0 ]'
check "from Slurm's start, not from when gpurent looked" \
	'[ "$(ledger "$B" start_ts)" = "$(slurm_time "$B" StartTime)" ]'
touch "$GATE_B"
wait_done "$B" || fail "job $B did not end"
wait_until 100 '[ "$(date +%s)" -ge $(($(slurm_time "$B" EndTime) + 2)) ]' ||
	fail "the clock did not pass job $B's end"
expect_ok g jobs
check "closed at Slurm's end" '[ "$(ledger "$B" end_ts)" = "$(slurm_time "$B" EndTime)" ]'
check "still one segment" '[ "$(ledger "$B" "count(*)")" = 1 ]'
expect_ok g jobs
check "looking again changes nothing" '[ "$(ledger "$B" end_ts)" = "$(slurm_time "$B" EndTime)" ]'

# The spend: (A's seconds x 7.20 + B's x 3.60) / 3600, under slurm.
SECS_A=$(ledger "$A" "end_ts - start_ts")
SECS_B=$(ledger "$B" "end_ts - start_ts")
expect_ok g costs --by provider -o json
SPENT=$(jq -r '.rows[] | select(.key == "slurm") | .spent * 1000000 | round' <<<"$OUT")
WANT=$(((SECS_A * 7200000 + SECS_B * 3600000 + 1800) / 3600))
check "costs --by provider: the GPU-seconds times the rate ($WANT micro, got $SPENT)" \
	'[ "$SPENT" -ge $((WANT - 1)) ] && [ "$SPENT" -le $((WANT + 1)) ]'
pass
