#!/usr/bin/env bash
# gpurent state migrate --merge (issue 31): two people on one provider account, each with a
# personal state file that recorded every instance it saw, bring both into one team store.
# ann's file goes in first (a plain migrate), bob's is merged: his view of ann's instance is
# there already and bills nothing more, his own instance adds the time before ann first saw
# it, his stale open segment does not run on past ann's end; samples of one GPU at one time
# and one event both watchers wrote are there once; rows with no user take their person's;
# each one's managed job m1 stays theirs (bob's takes a new id, his attempts and his
# controller's event follow it; merged again after it went on in his file, the team's record
# of it stands); caches, leases and a process's memory in meta are not merged;
# costs and audit of the team store give the hand-computed figures; a second merge copies
# nothing; a merge that fails half-way (a malformed row in the source's last table) leaves the
# target as it was; and --merge with --replace is a usage error.
# figure: state-merged
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
PG=$GPURENT_TEST_PG_URL

# As person $1, in a home of their own (their personal state file: $TMP/$1/state.db).
as() {
	local who=$1
	shift
	GPURENT_HOME=$TMP/$who "$GPURENT" "$@"
}
sql() { sqlite3 "$TMP/$1/state.db" "$2" || fail "sqlite3 $1: $2"; }
pg() { psql "$PG" -Atc "$1" 2>&1; }

# Both ledgers on the wall clock (vast), every segment closed but one, two days back from
# T0, a UTC midnight; since: that day.
T0=$(( $(date +%s) / 86400 * 86400 - 2 * 86400 ))
since=$(date -u -d "@$T0" +%F)
L="instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts, gone, currency, who"
for who in ann bob; do
	expect_ok as $who config set team.user $who
	expect_ok as $who costs	# the file, with its schema
done

# vast:1001, ann's launch, $2.00/h, then $2.40/h from 1 h (its disk), gone at 3 h: ann saw it
# all; bob saw it from 30 min, the new price at 7000 s, and never again (his open segment).
# vast:2001, ann's own, $1.00/h for an hour from 10 min: only ann saw it.
# vast:3001, bob's launch (a row of an older gpurent: no user), $3.60/h from 1 h, gone at
# 2.5 h for him (8940 s); ann saw it from 5000 s to 9000 s (no user: not her launch).
sql ann "INSERT INTO ledger($L) VALUES
	('vast:1001', 'vast', 'shared', 'H100', 0, 2000000, $T0, $((T0 + 3600)), 0, 'USD', 'ann'),
	('vast:1001', 'vast', 'shared', 'H100', 0, 2400000, $((T0 + 3600)), $((T0 + 10800)), 1, 'USD', 'ann'),
	('vast:2001', 'vast', 'a', 'A100', 0, 1000000, $((T0 + 600)), $((T0 + 4200)), 1, 'USD', 'ann'),
	('vast:3001', 'vast', 'b', 'L40S', 0, 3600000, $((T0 + 5000)), $((T0 + 9000)), 1, 'USD', NULL);
	INSERT INTO launch_journal(provider, price_hour, asked_ts, instance_id, settled, who) VALUES
	('vast', 2000000, $((T0 - 60)), 'vast:1001', 1, 'ann'),
	('vast', 1000000, $((T0 + 540)), 'vast:2001', 1, NULL);"
sql bob "INSERT INTO ledger($L) VALUES
	('vast:1001', 'vast', 'shared', 'H100', 0, 2000000, $((T0 + 1800)), $((T0 + 7000)), 0, 'USD', NULL),
	('vast:1001', 'vast', 'shared', 'H100', 0, 2400000, $((T0 + 7000)), 0, 0, 'USD', NULL),
	('vast:3001', 'vast', 'b', 'L40S', 0, 3600000, $((T0 + 3600)), $((T0 + 8940)), 1, 'USD', NULL);
	INSERT INTO launch_journal(provider, price_hour, asked_ts, instance_id, settled) VALUES
	('vast', 3600000, $((T0 + 3540)), 'vast:3001', 1);"
# vast:1001's GPU 0 sampled by both every minute, ann from T0, bob from 5 min: 5 of bob's 10
# samples are ann's moments. bob's series ids differ from ann's (3001's GPU is his 1).
sql ann "INSERT INTO sample_series(id, instance_id, gpu) VALUES(1, 'vast:1001', 0);"
sql bob "INSERT INTO sample_series(id, instance_id, gpu) VALUES(1, 'vast:3001', 0), (2, 'vast:1001', 0);"
for i in 0 1 2 3 4 5 6 7 8 9; do
	sql ann "INSERT INTO samples(series, at, source, util) VALUES(1, $((T0 + 60 * i)), 1, 90)"
	sql bob "INSERT INTO samples(series, at, source, util) VALUES(2, $((T0 + 300 + 60 * i)), 1, 90)"
done
# bob's minutes of vast:3001, compacted already: two minutes of its first hour.
sql bob "INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean, util_max)
	VALUES(1, $((T0 + 3600)), 2, 60, 1, 40, 50.0, 60), (1, $((T0 + 3660)), 2, 60, 1, 40, 50.0, 60)"
# One idle event both watchers wrote, and one of bob's own.
ev="INSERT INTO events(at, level, kind, policy, instance_id, label, util, message, who) VALUES"
sql ann "$ev($((T0 + 2000)), 1, 'idle', 'idle', 'vast:1001', 'shared', 3, 'idle for 30m', 'ann')"
sql bob "$ev($((T0 + 2000)), 1, 'idle', 'idle', 'vast:1001', 'shared', 3, 'idle for 30m', 'bob'),
	($((T0 + 4000)), 1, 'idle', 'idle', 'vast:3001', 'b', 2, 'idle for 5m', NULL)"

# A managed job each, both m1 in their own file (each file numbers its own): ann's one
# attempt cost $1.50; bob's two $0.70 + $2.00 = $2.70, and his controller's event names it.
mj="INSERT INTO managed_jobs(id, spec, state, attempt, recoveries, ckpt_seq, ckpt_at,
	created_at, ended_at, exit_code, why) VALUES"
ma="INSERT INTO managed_attempts(job_id, n, token, instance_id, gpu, price_hour, currency,
	remote_job, started_at, ended_at, ssh_failing_since, lost_s, cost, end_reason, run_at) VALUES"
sql ann "$mj('m1', '{\"name\":\"ann-train\",\"command\":[\"a\"],\"then_stop\":false}', 5, 1, 0, 0, 0,
	$((T0 + 100)), $((T0 + 400)), 0, 'done');
	$ma('m1', 1, 'ta', 'vast:2001', 'A100', 1000000, 'USD', '', $((T0 + 100)), $((T0 + 400)), 0, 0,
	1500000, 'done', $((T0 + 110)))"
sql bob "$mj('m1', '{\"name\":\"bob-train\",\"command\":[\"b\"],\"then_stop\":false}', 5, 2, 1, 0, 0,
	$((T0 + 200)), $((T0 + 900)), 0, 'done');
	$ma('m1', 1, 'tb1', 'vast:3001', 'L40S', 3600000, 'USD', '', $((T0 + 200)), $((T0 + 400)), 0, 0,
	700000, 'gone', $((T0 + 210))),
	('m1', 2, 'tb2', 'vast:3001', 'L40S', 3600000, 'USD', '', $((T0 + 400)), $((T0 + 900)), 0, 0,
	2000000, 'done', $((T0 + 410)));
	$ev($((T0 + 900)), 1, 'done', 'managed', '', 'm1', -1, 'bob-train done', 'bob')"
# What bob's file holds that is no one's in the team store: an id cache row (his completions,
# user ''), a lease his watcher held, a launch in flight (named by his journal's id 1), what
# his watcher said already, when his reconcile last ran; and one fact: when 3001 was created.
sql bob "INSERT INTO idcache(who, id, kind, provider, descr) VALUES('', 'bob-cached', 0, 'vast', 'x');
	INSERT INTO leases(name, holder, since, until) VALUES('watch', 'bob-holder', 1, 9000000000000);
	INSERT INTO meta(key, value) VALUES('launch.inflight:1', '$T0 3600000 0 USD bob'),
	('watch.day.warned', '$T0'), ('reconcile.last', '$T0'), ('created:vast:3001', '$((T0 + 3500))')"

expect_rc 2 as bob state migrate --to "$PG" --merge --replace
check "--merge with --replace is a usage error" '[[ $ERR == *"--merge"*"--replace"* ]]'

expect_ok as ann state migrate --to "$PG"
check "ann's journal row with no user became hers" \
	'[ "$(pg "SELECT count(*) FROM launch_journal WHERE who = '"'ann'"'")" = 2 ]'
expect_rc 13 as bob state migrate --to "$PG"
check "bob's plain migrate is refused, and says --merge" '[[ $ERR == *"--merge"* ]]'

expect_ok as bob state migrate --to "$PG" --merge -o json
merged=$OUT
# The money, by hand, micro-dollars:
#   vast:1001: 3600 s at 2.00 + 7200 s at 2.40 = 2.0 + 4.8 = 6.8 (bob's view adds nothing)
#   vast:2001: 3600 s at 1.00 = 1.0
#   vast:3001: bob's 1400 s before ann saw it at 3.60 = 1.4, ann's 4000 s at 3.60 = 4.0: 5.4
#   team: 13.2; ann (1001, 2001) 7.8, bob (3001: his launch, both views of it) 5.4.
for c in costs audit; do
	[ $c = audit ] && extra=--offline || extra=
	GPURENT_STATE_URL=$PG expect_ok as bob $c $extra --since "$since" -o json
	printf '%s\n' "$OUT" >"$TMP/team.$c"
done
check "costs of the team store: 13.2 spent ($(jq -c .spent "$TMP/team.costs"))" 'jq -e ".spent == 13.2" "$TMP/team.costs" >/dev/null'
check "audit: 6.8, 1.0, 5.4 per instance, 13.2 in all" \
	'[ "$(jq -c "[(.rows[] | [.key, .spend]), .total.spend]" "$TMP/team.audit")" = "[[\"vast:1001\",6.8],[\"vast:3001\",5.4],[\"vast:2001\",1],13.2]" ]'
GPURENT_STATE_URL=$PG expect_ok as bob costs --by user --since "$since" -o json
check "costs --by user: ann 7.8, bob 5.4: $(jq -c "[.rows[] | [.key, .spent]]" <<<"$OUT")" \
	'[ "$(jq -c "[.rows[] | [.key, .spent]]" <<<"$OUT")" = "[[\"ann\",7.8],[\"bob\",5.4]]" ]'

row() { jq -c --arg t "$1" '.[] | select(.table == $t) | [.rows, .already, .kept, .trimmed]' <<<"$merged"; }
# The ledger: 1001's two segments lie inside ann's view of it (there already); 3001's is cut
# to the 1400 s before ann first saw it.
check "ledger: 0 whole, 2 there already, 1 trimmed: $(row ledger)" '[ "$(row ledger)" = "[0,2,0,1]" ]'
check "samples: 5 copied, 5 there already: $(row samples)" '[ "$(row samples)" = "[5,5,0,0]" ]'
check "sample series: 3001's copied, 1001's there: $(row sample_series)" '[ "$(row sample_series)" = "[1,1,0,0]" ]'
check "minutes copied: $(row samples_minute)" '[ "$(row samples_minute)" = "[2,0,0,0]" ]'
check "events: bob's own two copied, the shared one there: $(row events)" '[ "$(row events)" = "[2,1,0,0]" ]'
check "bob's managed job added, not taken for ann's m1: $(row managed_jobs)" '[ "$(row managed_jobs)" = "[1,0,0,0]" ]'
check "and its two attempts: $(row managed_attempts)" '[ "$(row managed_attempts)" = "[2,0,0,0]" ]'
GPURENT_STATE_URL=$PG expect_ok as bob jobs --managed -o json
check "two managed jobs, each with its own attempts and cost: m1 ann's 1.50, m2 bob's 0.70 + 2.00" \
	'[ "$(jq -c "[.[] | [.id, .user, .attempt, .cost]]" <<<"$OUT")" = "[[\"m1\",\"ann\",1,1.5],[\"m2\",\"bob\",2,2.7]]" ]'
check "bob's controller event names his job by its new id" \
	'[ "$(pg "SELECT label FROM events WHERE policy = '"'managed'"'")" = m2 ]'
check "the id cache and the leases are not merged (nor listed)" \
	'[ "$(pg "SELECT count(*) FROM idcache WHERE id = '"'bob-cached'"'")/$(pg "SELECT count(*) FROM leases WHERE holder = '"'bob-holder'"'")" = 0/0 ] &&
	 [ "$(jq -c "[.[] | select(.table == \"idcache\" or .table == \"leases\")]" <<<"$merged")" = "[]" ]'
check "nor bob's launch in flight, what his watcher said, his reconcile's last run" \
	'[ "$(pg "SELECT count(*) FROM meta WHERE key IN ('"'launch.inflight:1', 'watch.day.warned', 'reconcile.last'"')")" = 0 ]'
check "3001's creation time is" \
	'[ "$(pg "SELECT value FROM meta WHERE key = '"'created:vast:3001'"'")" = $((T0 + 3500)) ]'
check "the journal: bob's launch copied: $(row launch_journal)" '[ "$(row launch_journal)" = "[1,0,0,0]" ]'
check "the ledger's totals and roll-ups are derived" \
	'[ "$(jq -c "[.[] | select(.derived) | .table]" <<<"$merged")" = "[\"ledger_closed\",\"ledger_day\",\"samples_gpu_hour\",\"samples_hour\"]" ]'
check "bob's 1001 samples joined ann's series (15 of them), 3001's minutes their new one" \
	'[ "$(pg "SELECT count(*) FROM samples s JOIN sample_series x ON x.id = s.series WHERE x.instance_id = '"'vast:1001'"'")" = 15 ] &&
	 [ "$(pg "SELECT count(*) FROM samples_minute s JOIN sample_series x ON x.id = s.series WHERE x.instance_id = '"'vast:3001'"'")" = 2 ]'
check "3001's hour rolled up from its two minutes of 2 samples each" \
	'[ "$(pg "SELECT samples FROM samples_hour WHERE instance_id = '"'vast:3001'"'")" = 4 ]'
check "no open segment: bob's stale one stops where ann saw 1001 end" \
	'[ "$(pg "SELECT count(*) FROM ledger WHERE end_ts = 0")" = 0 ]'
check "bob's journal row with no user became his" \
	'[ "$(pg "SELECT who FROM launch_journal WHERE instance_id = '"'vast:3001'"'")" = bob ]'

# Again: nothing new, and it says so.
before=$(pg "SELECT count(*) FROM ledger")/$(pg "SELECT count(*) FROM samples")/$(pg "SELECT count(*) FROM events")
expect_ok as bob state migrate --to "$PG" --merge -o json
check "a second merge copies nothing" \
	'[ "$(jq "[.[] | .rows + .trimmed] | add" <<<"$OUT")" = 0 ] && [[ $ERR == *"nothing new"* ]]'
expect_ok as ann state migrate --to "$PG" --merge -o json
check "nor does merging ann's file, which made the store" \
	'[ "$(jq "[.[] | .rows + .trimmed] | add" <<<"$OUT")" = 0 ]'
# bob's job went on in his file after the merge: the team's record of it stands, no third job.
sql bob "UPDATE managed_jobs SET why = 'done, checked', ended_at = ended_at + 60"
expect_ok as bob state migrate --to "$PG" --merge -o json
check "a job that went on since is the target's, kept: $(jq -c '.[] | select(.table == "managed_jobs")' <<<"$OUT")" \
	'[ "$(jq -c ".[] | select(.table == \"managed_jobs\") | [.rows, .already, .kept]" <<<"$OUT")" = "[0,0,1]" ] &&
	 [ "$(pg "SELECT count(*) FROM managed_jobs")/$(pg "SELECT why FROM managed_jobs WHERE id = '"'m2'"'")" = 2/done ]'
check "the rows are as they were" \
	'[ "$(pg "SELECT count(*) FROM ledger")/$(pg "SELECT count(*) FROM samples")/$(pg "SELECT count(*) FROM events")" = "$before" ]'
GPURENT_STATE_URL=$PG expect_ok as bob costs --since "$since" -o json
check "and so is the money" '[ "$OUT" = "$(cat "$TMP/team.costs")" ]'

# carl's file is bob's with a new instance, and a watcher row whose util is no number: the
# last table fails after the ledger went in, and nothing of it stays.
mkdir -p "$TMP/carl"
cp "$TMP/bob/state.db" "$TMP/carl/state.db"
expect_ok as carl config set team.user carl
sql carl "INSERT INTO ledger($L) VALUES
	('vast:4001', 'vast', 'c', 'H100', 0, 2000000, $T0, $((T0 + 3600)), 0, 'USD', 'carl');
	INSERT INTO watch_state VALUES('vast:4001', 'c', 0, 'x', 0, 0, 0, 0, 0, '', 0, 0, 0, 0)"
expect_rc 1 as carl state migrate --to "$PG" --merge
check "the malformed row fails the merge, saying why" '[[ $ERR == *"cannot copy into the target"*util* ]]'
check "and the target is as it was" \
	'[ "$(pg "SELECT count(*) FROM ledger")/$(pg "SELECT count(*) FROM samples")/$(pg "SELECT count(*) FROM events")" = "$before" ] &&
	 [ "$(pg "SELECT count(*) FROM ledger WHERE instance_id = '"'vast:4001'"'")" = 0 ]'
GPURENT_STATE_URL=$PG expect_ok as bob costs --since "$since" -o json
check "its money too" '[ "$OUT" = "$(cat "$TMP/team.costs")" ]'
pass
