#!/bin/bash
# scale.sh - `ls -o json`, `costs` and `costs --by label` with 1,000 instances and a year of
# per-second billing history in the ledger (issue 17 part 5), as medians of several runs.
#
#   bench/scale.sh [BUILD_DIR]      (default: build; RUNS=N, default 9; SEGS_PER_DAY=N,
#                                    default 2; SCALE_DIR=DIR keeps the state built;
#                                    OLD=BINARY compares the outputs with another gpurent's
#                                    and times it beside this one; STATE_ONLY=1 with SCALE_DIR
#                                    builds the state and stops: bench/team-store.sh's)
#
# The state is built directly with sqlite3, the way gpurent itself would have written it:
# one launch creates the simulated world, then 999 copies of that instance are added, all
# running; the ledger gets, for each of the 1,000 instances, a billing segment every
# 24/SEGS_PER_DAY hours for 365 days (a repricing, a stop and start: each change of rate
# opens a segment; billing accrues per second inside it), the last one still open; 200
# distinct labels. With the default that is 730,000 ledger rows. The simulator's clock is
# fixed (GPURENT_SIM_TIME) so that every run sees the same world. Floors measured in the
# same run: `gpurent version` (start-up alone) and sqlite3 reading the month's rows.
# EXPLAIN QUERY PLAN of the ledger query is printed with the figures.
set -eu
build=${1:-build}
gr=$(cd "$build" && pwd)/gpurent
runs=${RUNS:-9}
per_day=${SEGS_PER_DAY:-2}
[ -x "$gr" ] || { echo "bench/scale.sh: no binary at $gr" >&2; exit 2; }
# SCALE_DIR=DIR keeps the state there (for perf); it must not exist yet.
if [ -n "${SCALE_DIR:-}" ]; then
	mkdir "$SCALE_DIR"
	work=$(cd "$SCALE_DIR" && pwd)
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
now=1767225600		# 2026-01-01T00:00:00Z
export GPURENT_HOME=$work/home GPURENT_SIM_SEED=1 GPURENT_SIM_TIME=$((now + 86400 * 14 + 3600 * 9))
export NO_COLOR=1
unset GPURENT_SIM_OFFERS GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME
db=$GPURENT_HOME/state.db
t=$GPURENT_SIM_TIME

"$gr" launch "$("$gr" offers -o ids -n 1 type=on-demand)" --label team-0 >/dev/null
step=$((86400 / per_day))
sqlite3 "$db" <<SQL
BEGIN;
UPDATE sim_instances SET state = 2, state_since = $t - 365 * 86400, run_since = $t - 365 * 86400,
    next_at = $t + 3650 * 86400, created_at = $t - 365 * 86400;
INSERT INTO sim_instances(id, offer_idx, type, state, state_since, next_at, run_since,
    checked_until, price_hour, bid_hour, storage_hour, label, image, disk_gb, env, ports, onstart,
    client_token, created_at, status_msg)
WITH RECURSIVE i(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM i WHERE n < 1000)
SELECT printf('sim:i-%06d', n), (offer_idx + n) % 300, type, state, state_since, next_at,
    run_since, $t, price_hour, bid_hour, storage_hour, 'team-' || (n % 200), image, disk_gb,
    env, ports, onstart, printf('tok%d', n), created_at, status_msg
FROM sim_instances, i WHERE seq = 1;
UPDATE sqlite_sequence SET seq = 1000 WHERE name = 'sim_instances';
DELETE FROM ledger;
INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts)
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 365 * $per_day - 1)
SELECT s.id, 'sim', s.label, 'H100-SXM-80GB', 0, 1000000 + (s.seq * 7919 + k.n * 104729) % 3000000,
    $t - 365 * 86400 + k.n * $step,
    CASE WHEN k.n = 365 * $per_day - 1 THEN 0 ELSE $t - 365 * 86400 + (k.n + 1) * $step END
FROM sim_instances s, k ORDER BY k.n, s.seq;
COMMIT;
ANALYZE;
SQL
"$gr" costs >/dev/null	# the first run may add what a newer gpurent keeps (indexes, totals)
[ "${STATE_ONLY:-0}" = 1 ] && exit 0

# Median wall time and median CPU time (user + system, all threads) of RUNS runs, in ms:
# on a shared machine the CPU time is the figure that does not depend on the others' load.
median_ms() {
	local i w c
	: >"$work/times"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>&1
		cat "$work/time" >>"$work/times"
	done
	w=$(awk '{ print $1 * 1000 }' "$work/times" | sort -n | awk '{ v[NR] = $1 }
	    END { printf "%.0f", v[int((NR + 1) / 2)] }')
	c=$(awk '{ print ($2 + $3) * 1000 }' "$work/times" | sort -n | awk '{ v[NR] = $1 }
	    END { printf "%.0f", v[int((NR + 1) / 2)] }')
	echo "$w ms | $c ms"
}

month=$(date -u -d "@$t" +%Y-%m-01)
year=$(date -u -d "@$((t - 360 * 86400))" +%Y-%m-%d)
mstart=$(date -u -d "$month" +%s)
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each"
echo "ledger rows: $(sqlite3 "$db" 'SELECT count(*) FROM ledger'), in this month's window:" \
    "$(sqlite3 "$db" "SELECT count(*) FROM ledger WHERE end_ts = 0 OR end_ts > $mstart")," \
    "instances: $(sqlite3 "$db" 'SELECT count(*) FROM sim_instances')"
echo
echo "| command | median wall | median CPU |"
echo "|---|---:|---:|"
echo "| floor: gpurent version | $(median_ms "$gr" version) |"
echo "| floor: sqlite3, the month's rows | $(median_ms sqlite3 "$db" "SELECT instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts, gone FROM ledger WHERE end_ts = 0 OR end_ts > $mstart ORDER BY +start_ts, id") |"
echo "| gpurent ls -o json | $(median_ms "$gr" ls -o json) |"
echo "| gpurent costs | $(median_ms "$gr" costs) |"
echo "| gpurent costs --by label | $(median_ms "$gr" costs --by label) |"
echo "| gpurent costs --by day | $(median_ms "$gr" costs --by day) |"
echo "| gpurent costs --since (a year) --by label | $(median_ms "$gr" costs --since "$year" --by label) |"
if [ -n "${OLD:-}" ]; then
	for c in "ls -o json" costs "costs --by label" "costs --since $year --by label"; do
		echo "| old: gpurent $c | $(median_ms "$OLD" $c) |"
	done
	# The kept daily totals must give what the rows give, byte for byte.
	echo
	for c in costs "costs -o json" "costs --by label" "costs --by label -o json" \
	    "costs --by provider" "costs --by gpu -o json" "costs --by instance -o json" \
	    "costs --by day" "costs --since ${month}T13:30:00" "costs --since $year --by label" \
	    "costs --since $year -o json" "ls -o json" ls; do
		if cmp -s <("$OLD" $c 2>&1) <("$gr" $c 2>&1); then
			echo "identical to OLD: gpurent $c"
		else
			echo "DIFFERS from OLD: gpurent $c"
		fi
	done
fi
echo
echo "query plan of the month's ledger rows:"
sqlite3 "$db" "EXPLAIN QUERY PLAN SELECT instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts, gone FROM ledger WHERE (end_ts = 0 OR end_ts > $mstart) AND (0 = 0 OR start_ts < 0) ORDER BY +start_ts, id"
