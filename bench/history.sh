#!/bin/bash
# history.sh - the sample history and the exporter (issue 13 part 7):
#
# 1. `gpurent metrics ID --since 30d` over a month of 10 s history of 16 instances (one GPU
#    each): 29 days of one-minute aggregates and 24 hours of raw samples per instance,
#    written straight into the tables (the layout store/history.c makes; see include/gpurent/
#    history.h), so that building the month takes seconds. Floors in the same run: the
#    process start (`gpurent version`) and the sqlite3 shell running the bucket query of
#    one instance's minutes alone. Target: under 100 ms. Also the database's size.
# 2. `gpurent exporter` answering a scrape of 64 running instances while a second provider
#    hangs (`sim serve --latency 600000`: every request to it waits out http.timeout), so
#    every sampling round is stuck on it. Median and 99th percentile of 200 scrapes
#    (curl's time_total), against the floor: bench/static_serve.c answering the same bytes
#    from memory. Target: under 10 ms.
#
# usage: bench/history.sh [BUILD_DIR]   (default: build); RUNS=N (default 11); SKIP_EXPORTER=1
# (part 1 only); PROFILE=1 (perf's top functions of part 1's command)
set -eu
build=${1:-build}
G=$(cd "$build" && pwd)/gpurent
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-11}
[ -x "$G" ] || { echo "bench/history.sh: no binary at $G" >&2; exit 2; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
export GPURENT_HOME=$TMP/home GPURENT_SIM_SEED=1 NO_COLOR=1 LC_ALL=C.UTF-8
unset GPURENT_SIM_OFFERS GPURENT_SIM_SPEED GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z
T=$GPURENT_SIM_TIME

# Median wall time in ms of RUNS runs of a command (output discarded).
median_ms() {
	local i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

# Median CPU time (user + system) in ms of RUNS runs: on a shared, loaded machine the wall
# time mostly measures the wait for a CPU, the CPU time what the command costs.
median_cpu_ms() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1
	done | awk '{ print ($1 + $2) * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { printf "%.0f", v[int((NR + 1) / 2)] }'
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each"
echo
echo "== 1. metrics --since 30d, 16 instances x a month of 10 s samples =="
mkdir -p "$GPURENT_HOME"
id=$("$G" launch "$("$G" offers type=on-demand 'gpus=1' -o ids -n 1)")
"$G" sim advance 2m >/dev/null
"$G" metrics "$id" >/dev/null		# makes the tables
db=$GPURENT_HOME/state.db
sqlite3 "$db" <<EOF
DELETE FROM samples; DELETE FROM samples_minute; DELETE FROM sample_series;
WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 16)
-- seen: what an API sample knows (MV_UTIL, MV_MEM, MV_TEMP, MV_POWER, MV_POWER_LIMIT).
INSERT INTO sample_series(id, instance_id, gpu, seen) SELECT n, printf('sim:i-9%05d', n), 0, 31 FROM i;
-- 29 days of minutes, then 24 hours of raw samples every 10 s, per instance.
WITH RECURSIVE m(t) AS (SELECT $T - 30 * 86400 UNION ALL SELECT t + 60 FROM m WHERE t + 60 < $T - 86400)
INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean, util_max,
	mem_used_min, mem_used_mean, mem_used_max, mem_total, temp_min, temp_mean, temp_max,
	power_min, power_mean, power_max, power_limit)
SELECT s.id, m.t, 6, 60, 0, 40, 70.5, 99, 30000, 35000.5, 40000, 81559, 60, 65.5, 71, 300, 450.5, 690, 700
FROM m, sample_series s;
WITH RECURSIVE r(t) AS (SELECT $T - 86400 UNION ALL SELECT t + 10 FROM r WHERE t + 10 < $T)
INSERT INTO samples(series, at, source, util, mem_used, mem_total, temp, power, power_limit)
SELECT s.id, r.t, 0, (r.t / 10) % 100, 35000, 81559, 65, 450, 700 FROM r, sample_series s;
-- The minute rows were written behind gpurent's back: the roll-ups are made again from
-- them by the first command, as for a database made before them.
DROP TABLE IF EXISTS samples_hour; DROP TABLE IF EXISTS samples_gpu_hour;
-- As a gpurent before the roll-ups left it: no schema version (store/schema.c).
PRAGMA user_version = 0;
EOF
sqlite3 "$db" "VACUUM"
minutes=$(sqlite3 "$db" "SELECT count(*) FROM samples_minute")
raw=$(sqlite3 "$db" "SELECT count(*) FROM samples")
size=$(( $(stat -c %s "$db") / 1024 / 1024 ))
# The first command applies retention at the simulator's now (2 minutes past the month).
t0=$(date +%s%N)
rows=$("$G" metrics sim:i-900001 --since 30d -o csv | tail -n +2 | wc -l)
first_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
step=$("$G" metrics sim:i-900001 --since 30d -o json | jq '.[0].step_s')
sql="SELECT minute / $step, min(util_min), avg(util_mean), max(util_max) FROM samples_minute WHERE series = 1 GROUP BY 1"
echo "database: $minutes minute rows, $raw raw rows, $size MiB after VACUUM; the answer: $rows rows ($step s buckets); the first command (retention, roll-ups filled): $first_ms ms"
echo "| measure | median wall | median CPU | target |"
echo "|---|---:|---:|---:|"
echo "| \`metrics ID --since 30d -o json\` | $(median_ms "$G" metrics sim:i-900001 --since 30d -o json) ms | $(median_cpu_ms "$G" metrics sim:i-900001 --since 30d -o json) ms | < 100 ms |"
echo "| \`metrics ID --since 30d\` (table) | $(median_ms "$G" metrics sim:i-900001 --since 30d) ms | $(median_cpu_ms "$G" metrics sim:i-900001 --since 30d) ms | |"
echo "| floor: \`gpurent version\` (process start) | $(median_ms "$G" version) ms | $(median_cpu_ms "$G" version) ms | |"
echo "| floor: sqlite3 shell, one instance's minutes in $step s buckets | $(median_ms sqlite3 "$db" "$sql") ms | $(median_cpu_ms sqlite3 "$db" "$sql") ms | |"
# PROFILE=1: where the CPU time of `--since 30d -o json` goes (perf, 20 runs).
if [ -n "${PROFILE:-}" ]; then
	for ((i = 0; i < 20; i++)); do
		perf record -q -F 4999 -o "$TMP/perf.$i" -- "$G" metrics sim:i-900001 --since 30d -o json >/dev/null 2>&1
	done
	echo
	echo "top functions (self, all samples of 20 runs):"
	for ((i = 0; i < 20; i++)); do
		perf report -q -i "$TMP/perf.$i" --stdio --no-children --sort symbol -F overhead,sym 2>/dev/null
	done | awk '{ p = $1; sub(/%/, "", p); s[$2 " " $3] += p } END { for (k in s) printf "%6.1f%% %s\n", s[k] / 20, k }' |
		sort -rn | head -12
fi

echo
[ -n "${SKIP_EXPORTER:-}" ] && exit 0
echo "== 2. exporter scrape, 64 running instances, a second provider hanging =="
export GPURENT_HOME=$TMP/home2
mkdir -p "$GPURENT_HOME"
for o in $("$G" offers type=on-demand -o ids -n 64); do "$G" launch "$o" >/dev/null; done
"$G" sim advance 2m >/dev/null
running=$("$G" ls -o json | jq '[.[] | select(.state == "running")] | length')
"$G" sim serve --dialect vast --port 0 --api-key k --latency 600000 >"$TMP/hang.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q listening "$TMP/hang.out" && break; sleep 0.1; done
export GPURENT_VAST_URL=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/hang.out") GPURENT_VAST_API_KEY=k
"$G" config set http.timeout 3s >/dev/null
"$G" --provider sim --provider vast exporter --listen 127.0.0.1:0 --interval 1 2>"$TMP/exp.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q serving "$TMP/exp.err" && break; sleep 0.1; done
url=$(sed -n 's/^gpurent exporter: serving //p' "$TMP/exp.err")
# The first round waits out the hanging provider; every later one hangs on it again.
for _ in $(seq 600); do
	[ "$(curl -s -o "$TMP/body" -w '%{http_code}' "$url")" = 200 ] && break
	sleep 0.1
done
grep -q '^gpurent_provider_up{provider="vast"} 0$' "$TMP/body" || { echo "vast is not down?" >&2; exit 1; }
series=$(grep -c '^DCGM_FI_DEV_GPU_UTIL{' "$TMP/body")
scrapes() {	# scrapes URL: median and p99 of 200 scrapes, in ms
	local i
	for ((i = 0; i < 200; i++)); do
		curl -s -o /dev/null -w '%{time_total}\n' "$1"
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f ms | %.2f ms", v[100] * 1000, v[198] * 1000 }'
}
t_exp=$(scrapes "$url")
cc -O2 -o "$TMP/static_serve" "$HERE/static_serve.c" $(pkg-config --cflags --libs libmicrohttpd) -lpthread
"$TMP/static_serve" "$TMP/body" >"$TMP/static.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q port "$TMP/static.out" && break; sleep 0.1; done
t_floor=$(scrapes "http://127.0.0.1:$(sed -n 's/^port //p' "$TMP/static.out")/metrics")
echo "$running running instances, $series GPU series, $(( $(stat -c %s "$TMP/body") / 1024 )) KiB per scrape; vast hanging (provider_up 0)"
echo "| server | median | p99 | target |"
echo "|---|---:|---:|---:|"
echo "| gpurent exporter | $t_exp | < 10 ms |"
echo "| floor: static_serve, the same bytes from memory | $t_floor | |"
