#!/bin/bash
# Only fresh evidence counts: an instance whose utilisation is unknown, or whose newest
# sample is older than three intervals, is reported unobserved and never stopped as idle,
# however long it stays so; once fresh idle samples come again, idle.after starts over.
# A gpurent job running on an instance (over a real sshd) is activity: its idle GPU is not
# stopped until the job ends, unless watch.jobs_active is false.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 2)
blind=$(g launch "${offers[0]}" --env SIM_WORKLOAD=unreported --label blind) || fail "launch"
# Idle and reporting for 20 minutes of uptime, then no metrics at all.
dark=$(g launch "${offers[1]}" --env SIM_WORKLOAD=dark:20m --label dark) || fail "launch"
expect_ok g config set idle.after 10m
expect_ok g config set idle.threshold 50
expect_ok g sim advance 2m

expect_ok g watch --once --interval 1m
check "unknown utilisation is unobserved: $OUT" \
	'[[ $OUT == *"info unobserved $blind: GPU utilisation unknown: not counted as idle"* ]]'
# The dark one was seen idle; passes every minute until its metrics stop.
for ((i = 0; i < 8; i++)); do
	expect_ok g sim advance 1m
	expect_ok g watch --once --interval 1m
done
check "nothing ordered before idle.after" '[ "$(count_events stop-ordered)" -eq 0 ]'
# Its metrics stop at 20 minutes of uptime: a pass an hour later has only a stale sample.
expect_ok g sim advance 1h
expect_ok g watch --once --interval 1m
check "a stale sample is unobserved: $OUT" \
	'[[ $OUT == *"info unobserved $dark: newest sample"*"old (over 3m00s): not counted as idle"* ]]'
for ((i = 0; i < 6; i++)); do
	expect_ok g sim advance 1h
	expect_ok g watch --once --interval 1m
done
check "neither was stopped" '[ "$(state_of "$blind")" = running ] && [ "$(state_of "$dark")" = running ]'
check "no order at all" '[ "$(count_events stop-ordered)" -eq 0 ] && [ "$(count_events idle)" -eq 0 ]'
check "unobserved said once per instance, not per pass" \
	'[ "$(count_events unobserved "$blind")" -eq 1 ] && [ "$(count_events unobserved "$dark")" -eq 1 ]'

# A sample within three intervals still counts: with --interval 1d the last one (from
# 20 minutes of uptime, about 7 hours ago) is fresh again, and idle for long enough.
expect_ok g watch --once --interval 1d
check "with a long enough interval the old sample is evidence: $OUT" \
	'[[ $OUT == *"stop-ordered $dark"* ]]'
check "the blind one never" '[[ $OUT != *"$blind"* ]]'

# A job on an idle GPU.
start_sshd
busy=$(g launch "$(ids_of 3 | tail -1)" --env SIM_WORKLOAD=idle --label with-job) || fail "launch"
expect_ok g sim advance 2m
expect_ok g run "$busy" --detach -- sleep 300
job=$OUT
expect_ok g watch --once --interval 5m
expect_ok g sim advance 11m
expect_ok g watch --once --interval 5m
check "a running job keeps it: $OUT" '[[ $OUT != *"$busy"* ]] && [ "$(state_of "$busy")" = running ]'
# With watch.jobs_active false for its label, the job does not count (a dry run, so that
# nothing is done).
expect_ok g config set label.with-job.watch.jobs_active false
expect_ok g watch --once --interval 5m
expect_ok g sim advance 10m
expect_ok g watch --dry-run --once --interval 5m
check "unless jobs do not count: $OUT" '[[ $OUT == *"would: action stop-ordered $busy"* ]]'
expect_ok g config unset label.with-job.watch.jobs_active
expect_ok g watch --once --interval 5m
check "the job counts again: $OUT" '[[ $OUT != *"$busy"* ]]'
expect_ok g kill "$job"
expect_ok g watch --once --interval 1m
check "the job ended: the first idle sample, nothing yet: $OUT" '[[ $OUT != *"ordered $busy"* ]]'
expect_ok g sim advance 10m
expect_ok g watch --once --interval 5m
check "then idle.after later it is stopped: $OUT" '[[ $OUT == *"stop-ordered $busy"* ]]'
pass
