#!/usr/bin/env bash
# Plain `gpurent jobs` lists the managed jobs after the runs, marked KIND managed (and the run
# of a managed job's attempt KIND attempt), with their figures; -o json the same.
# figure: managed-figures
. "$(dirname "$0")/lib.sh"
expect_ok g jobs -o json
check "no jobs: none listed" '[ "$OUT" = "[]" ]'

# m1: done after a recovery. Attempt 1 (sim:i-000001) was lost with 120 s of work and billed
# $1.50, attempt 2 (sim:i-000002) billed $2.25: the job cost $1.50 + $2.25 = $3.75, lost
# 120 s, and its newest checkpoint was pulled 90 s before it ended (1790000900 - 1790000810).
# m2: renting its first machine, nothing rented yet: no cost (unknown, not 0) and no
# checkpoint. The runs: attempt 2's (sim:i-000002/1) and a plain one (sim:i-000003/1).
sqlite3 "$DB" <<'SQL'
INSERT INTO managed_jobs(id, spec, state, attempt, recoveries, ckpt_seq, ckpt_at, created_at,
	ended_at, exit_code, why)
VALUES('m1', '{"name":"train","command":["python","train.py"],"then_stop":false}', 5, 2, 1,
	4, 1790000810, 1790000000, 1790000900, 0, 'done'),
	('m2', '{"name":"","command":["sh -c true"],"then_stop":true}', 0, 1, 0, 0, 0,
	1790000500, 0, -1, '');
INSERT INTO managed_attempts(job_id, n, token, instance_id, gpu, price_hour, currency,
	remote_job, started_at, ended_at, ssh_failing_since, lost_s, cost, end_reason, run_at)
VALUES('m1', 1, 't1', 'sim:i-000001', 'H100-SXM-80GB', 2000000, 'USD', 'sim:i-000001/1',
	1790000000, 1790000400, 0, 120, 1500000, 'gone', 1790000010),
	('m1', 2, 't2', 'sim:i-000002', 'H100-SXM-80GB', 2000000, 'USD', 'sim:i-000002/1',
	1790000400, 1790000900, 0, 0, 2250000, 'done', 1790000410),
	('m2', 1, 't3', '', '', -1, '', '', 1790000500, 0, 0, 0, -1, '', 0);
INSERT INTO jobs(id, instance_id, seq, dir, name, command, started_at, state, exit_code,
	then_action, after, fetch, account)
VALUES('sim:i-000002/1', 'sim:i-000002', 1, '/x/2', 'train', 'python train.py', 1790000410,
	1, 0, '', 0, NULL, ''),
	('sim:i-000003/1', 'sim:i-000003', 1, '/x/3', '', 'echo hi', 1790000600, 1, 0, '', 0,
	NULL, '');
SQL

expect_ok g jobs -o json
check "the runs first, then the managed jobs, each marked" \
	'[ "$(jq -r "[.[] | .id + \" \" + .kind] | join(\",\")" <<<"$OUT")" = \
	"sim:i-000002/1 attempt,sim:i-000003/1 run,m1 managed,m2 managed" ]'
check "m1: its state, machine, name, command, start and end as a run's" \
	'[ "$(jq -r ".[2] | [.state, .instance, .name, .command, .started, .then, .exit_code, .account] | @tsv" <<<"$OUT")" = \
	"done	sim:i-000002	train	python train.py	2026-09-21T14:13:20Z	destroy	0	done" ]'
check "m1: attempt 2, 1 recovery, 120 s lost, checkpoint 90 s old, cost 1.50 + 2.25" \
	'[ "$(jq -r ".[2] | [.attempt, .recoveries, .lost, .checkpoint_age, .cost] | @tsv" <<<"$OUT")" = \
	"2	1	120	90	3.75" ]'
check "m2: nothing rented, no cost and no checkpoint yet (null, not 0)" \
	'[ "$(jq -c ".[3] | [.state, .instance, .cost, .checkpoint_age, .exit_code, .then]" <<<"$OUT")" = \
	"[\"renting\",null,null,null,null,\"stop\"]" ]'
check "a run has none of a managed job's figures" \
	'[ "$(jq -c ".[1] | [.attempt, .recoveries, .lost, .checkpoint_age, .cost]" <<<"$OUT")" = \
	"[null,null,null,null,null]" ]'

COLUMNS=200 expect_ok g jobs
check "the table marks them and shows m1's figures ($OUT)" \
	'grep -Eq "^m1 +managed +train +done +0 .* done +2 +1m +1 +2m +\\\$3\.7500$" <<<"$OUT"'
check "and the attempt's run" 'grep -Eq "^sim:i-000002/1 +attempt " <<<"$OUT"'

expect_ok g jobs sim:i-000003 -o json
check "an instance's jobs are its runs only" '[ "$(jq -r "[.[].id] | join(\",\")" <<<"$OUT")" = sim:i-000003/1 ]'
expect_ok g jobs --managed -o json
check "--managed still lists the managed jobs alone" '[ "$(jq -r "[.[].id] | join(\",\")" <<<"$OUT")" = m1,m2 ]'
pass
