#!/bin/bash
# bench/audit.sh BUILD - `gpurent audit --since 30d` over a month of history for 50 instances.
#
# Builds a state database as a month of watching leaves it (history.h retention): 50
# instances of one GPU each on vast's (wall) clock, each billed the whole month in one
# segment a day (1,500 ledger rows); one-minute sample aggregates for days 30..2 (41,760
# per GPU, 2.09 M rows) and raw samples every 30 s for the last day (2,880 per GPU, 144,000
# rows), utilisation following a daily tide with idle nights, power with it. Then times,
# as the median of RUNS runs (default 7):
#   audit     gpurent audit --since 30d --offline -o json   (ledger + history, no provider)
#   floor     sqlite3 reading every sample row (count and sum of util over both tables):
#             what reading the minutes themselves costs at least
#   floor-hour sqlite3 reading what audit reads now: the hourly roll-up's rows (samples_hour,
#             their histograms' bytes) and the raw samples
#   startup   gpurent version (process start, no database)
# The sample rows are written behind gpurent's back, so the roll-up is dropped after and
# the first audit fills it from them, as on a database made before samples_hour: that
# one-off upgrade is timed once (upgrade).
# each as median wall time and median CPU time (user + system).
# --offline keeps providers out: the figure is the audit's own work.
set -eu
build=${1:?usage: bench/audit.sh BUILD}
gr=$(cd "$build" && pwd)/gpurent
RUNS=${RUNS:-7}
tmp=$(mktemp -d)
# KEEP=1 leaves the database (its directory is printed) for perf or callgrind by hand.
if [ "${KEEP:-0}" = 1 ]; then echo "database kept in $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
export GPURENT_HOME=$tmp NO_COLOR=1
unset GPURENT_SIM_TIME GPURENT_SIM_SPEED
db=$tmp/state.db

"$gr" audit --offline >/dev/null	# creates the ledger
now=$(( $(date -u +%s) / 60 * 60 ))
start=$(( now - 30 * 86400 ))
raw_from=$(( now - 86400 ))
sqlite3 "$db" <<SQL
PRAGMA journal_mode=WAL;
BEGIN;
WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 50),
     d(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM d WHERE j < 29)
INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts)
SELECT 'vast:' || k, 'vast', 'team' || (k % 5), 'H100-SXM-80GB', 0, 2000000 + k * 10000,
       $start + j * 86400, CASE WHEN j = 29 THEN 0 ELSE $start + (j + 1) * 86400 END
FROM i, d;
COMMIT;
SQL
"$gr" audit --offline >/dev/null	# billed instances: it reads (so creates) the sample tables
sqlite3 "$db" <<SQL
BEGIN;
WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < 50)
INSERT INTO sample_series(id, instance_id, gpu) SELECT k, 'vast:' || k, 0 FROM i;
WITH RECURSIVE m(t) AS (SELECT $start UNION ALL SELECT t + 60 FROM m WHERE t + 60 < $raw_from),
     g(id, t, u) AS (SELECT s.id, m.t, CASE WHEN ((m.t / 3600) % 24) < 8 THEN 0
                                            ELSE 40 + ((m.t / 60 + s.id) % 60) END
                     FROM sample_series s, m)
INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean, util_max,
       power_min, power_mean, power_max)
SELECT id, t, 2, 60, 0, u, u, u, 80 + u * 6, 80 + u * 6, 80 + u * 6 FROM g;
WITH RECURSIVE r(t) AS (SELECT $raw_from UNION ALL SELECT t + 30 FROM r WHERE t + 30 < $now)
INSERT INTO samples(series, at, source, util, power)
SELECT s.id, r.t, 0, CASE WHEN ((r.t / 3600) % 24) < 8 THEN 0 ELSE 40 + ((r.t / 60 + s.id) % 60) END,
       80 + 6 * CASE WHEN ((r.t / 3600) % 24) < 8 THEN 0 ELSE 40 + ((r.t / 60 + s.id) % 60) END
FROM sample_series s, r;
COMMIT;
DROP TABLE IF EXISTS samples_hour;
-- As a gpurent before the roll-ups left it: no schema version (store/schema.c).
PRAGMA user_version = 0;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
t0=$(date +%s%N)
"$gr" audit --since 30d --offline -o json >/dev/null
t1=$(date +%s%N)
echo "upgrade: the first audit filled samples_hour ($(sqlite3 "$db" 'SELECT count(*) FROM samples_hour') rows) in $(( (t1 - t0) / 1000000 )) ms wall, once"
echo "history: $(sqlite3 "$db" 'SELECT count(*) FROM samples_minute') minute rows," \
	"$(sqlite3 "$db" 'SELECT count(*) FROM samples') raw rows," \
	"$(sqlite3 "$db" 'SELECT count(*) FROM ledger') ledger rows," \
	"$(du -m "$db" | cut -f1) MB"

# Median wall time in ms of RUNS runs of the command.
median_ms() {
	local i t0 t1 v=()
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null
		t1=$(date +%s%N)
		v+=($(( (t1 - t0) / 1000000 )))
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}

# Median CPU time (user + system) in ms of RUNS runs: on a loaded machine the wall time is
# mostly the wait for a CPU.
median_cpu_ms() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1
	done | awk '{ print ($1 + $2) * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f", v[int((NR + 1) / 2)] }'
}

"$gr" audit --since 30d --offline -o json >"$tmp/out.json"
echo "audit total: $(jq -c '.total | {instances, billed_hours, spend, util_mean_pct, idle_pct, waste, energy_kwh}' "$tmp/out.json")"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
floor_sql='SELECT count(*), sum(util_mean) FROM samples_minute; SELECT count(*), sum(util) FROM samples;'
hour_sql='SELECT count(*), sum(util_sum), sum(length(util_secs) + length(instant_secs)) FROM samples_hour; SELECT count(*), sum(util) FROM samples;'
echo "audit   $(median_ms "$gr" audit --since 30d --offline -o json) ms wall, $(median_cpu_ms "$gr" audit --since 30d --offline -o json) ms CPU (medians of $RUNS)"
echo "floor   $(median_ms sqlite3 "$db" "$floor_sql") ms wall, $(median_cpu_ms sqlite3 "$db" "$floor_sql") ms CPU (sqlite3 reading every sample row)"
echo "floor-hour $(median_ms sqlite3 "$db" "$hour_sql") ms wall, $(median_cpu_ms sqlite3 "$db" "$hour_sql") ms CPU (sqlite3 reading the hourly rows and the raw samples)"
echo "startup $(median_ms "$gr" version) ms wall, $(median_cpu_ms "$gr" version) ms CPU (gpurent version)"
