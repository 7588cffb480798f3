#!/bin/bash
# exporter.sh - the exporter's scrape while a provider hangs (issue 13 part 7):
#
# 1. In one process, no HTTP (bench/exporter_render.c): what a scrape of 64 instances costs
#    the exporter's thread: the old scrape (the whole exposition formatted from the snapshot
#    under the lock), the scrape now (the page rendered at publish, copied, the ages added),
#    and the floor (a fresh buffer and one memcpy of the same bytes). Median of RUNS runs of
#    200 calls each; with CALLGRIND=1 also the instructions of 100 calls of each.
# 2. End to end: `gpurent exporter` serving 64 running simulated instances while vast's
#    address is a socket that accepts and never answers (its lane waits out http.timeout),
#    scraped 200 times by one curl process per run (time_total per scrape, one connection)
#    and 100 times by a curl each (a connection per scrape, as bench/history.sh measured),
#    RUNS runs; the floor in the same runs, alternating with it: bench/static_serve.c
#    answering the same bytes from memory.
#    Target: under 10 ms. Also: when the first snapshot was served (the first round of
#    sim's lane over the 64 instances) and how many rounds the lane ended in the WINDOW
#    seconds after it (default 30).
#
# usage: bench/exporter.sh [BUILD_DIR]   (default: build); RUNS=N (default 5)
set -eu
build=${1:-build}
B=$(cd "$build" && pwd)
G=$B/gpurent
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-5}
[ -x "$G" ] || { echo "bench/exporter.sh: no binary at $G" >&2; exit 2; }
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
export GPURENT_HOME=$TMP/home GPURENT_SIM_SEED=1 NO_COLOR=1 LC_ALL=C.UTF-8
unset GPURENT_SIM_OFFERS GPURENT_SIM_SPEED GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME GPURENT_SIM_TIME

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each"
echo
echo "== 1. the scrape path in one process (64 instances, 89 GPUs) =="
cc -O2 -I"$HERE/../include" -o "$TMP/exporter_render" "$HERE/exporter_render.c" "$B/libgpurent.a" -lm -lpthread
echo "| scrape path | median of $RUNS run medians (200 calls each) | fastest call |"
echo "|---|---:|---:|"
for m in render page floor; do
	for ((r = 0; r < RUNS; r++)); do "$TMP/exporter_render" "$m" 200; done >"$TMP/$m.txt"
	med=$(sed -n 's/.*median \([0-9.]*\) us.*/\1/p' "$TMP/$m.txt" | median)
	fast=$(sed -n 's/.*fastest \([0-9.]*\) us.*/\1/p' "$TMP/$m.txt" | sort -n | head -1)
	echo "| $m | $med us | $fast us |"
done
if [ -n "${CALLGRIND:-}" ]; then
	echo
	echo "| scrape path | instructions per call (callgrind, 100 calls less 1) |"
	echo "|---|---:|"
	for m in render page floor; do
		ir() {
			valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.$m.$1" "$TMP/exporter_render" "$m" "$1" >/dev/null 2>&1
			sed -n 's/^summary: //p' "$TMP/cg.$m.$1"
		}
		a=$(ir 1)
		b=$(ir 101)
		echo "| $m | $(( (b - a) / 100 )) |"
	done
fi

echo
echo "== 2. end to end: 64 running instances, vast hanging =="
mkdir -p "$GPURENT_HOME"
# An offer the simulated market rents away between the listing and the launch is skipped
# (a slow, loaded machine gives it the time); the count of running instances is printed.
for o in $("$G" offers type=on-demand -o ids -n 64); do "$G" launch "$o" >/dev/null || true; done
"$G" sim advance 2m >/dev/null
running=$("$G" ls -o json | jq '[.[] | select(.state == "running")] | length')
python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept())
' >"$TMP/hang.out" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$TMP/hang.out" ] && break; sleep 0.1; done
export GPURENT_VAST_URL=http://127.0.0.1:$(head -1 "$TMP/hang.out") GPURENT_VAST_API_KEY=k
"$G" config set http.timeout 10m >/dev/null
"$G" --provider sim --provider vast exporter --listen 127.0.0.1:0 --interval 1 2>"$TMP/exp.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q serving "$TMP/exp.err" && break; sleep 0.1; done
url=$(sed -n 's/^gpurent exporter: serving //p' "$TMP/exp.err")
first=$(date +%s%N)
for _ in $(seq 600); do
	[ "$(curl -s -o "$TMP/body" -w '%{http_code}' "$url")" = 200 ] && break
	sleep 0.1
done
ready=$((($(date +%s%N) - first) / 1000000))
grep -q '^gpurent_provider_up{provider="vast"} 0$' "$TMP/body" || { echo "vast is not down?" >&2; exit 1; }
# Later rounds: the rounds sim's lane ended in WINDOW seconds after the first snapshot,
# counted as new sample times of one instance in the history (the sim clock's seconds).
WINDOW=${WINDOW:-30}
DB=$GPURENT_HOME/state.db
times_of_one() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(DISTINCT s.at) FROM samples s
		WHERE s.series = (SELECT min(id) FROM sample_series)"
}
before_window=$(times_of_one)
sleep "$WINDOW"
later_rounds=$(( $(times_of_one) - before_window ))
series=$(grep -c '^DCGM_FI_DEV_GPU_UTIL{' "$TMP/body")
# One curl per run, 200 scrapes over one connection each (time_total per transfer, in ms).
scrapes() {
	local i args=()
	for ((i = 0; i < 200; i++)); do args+=(-o /dev/null -w '%{time_total}\n' "$1"); done
	curl -s "${args[@]}" | awk '{ print $1 * 1000 }'
}
cc -O2 -o "$TMP/static_serve" "$HERE/static_serve.c" $(pkg-config --cflags --libs libmicrohttpd) -lpthread
"$TMP/static_serve" "$TMP/body" >"$TMP/static.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q port "$TMP/static.out" && break; sleep 0.1; done
floor_url="http://127.0.0.1:$(sed -n 's/^port //p' "$TMP/static.out")/metrics"
# As bench/history.sh measured before (10.95 ms): a new curl, so a new connection, per
# scrape, as Prometheus does when keep-alive is off; 100 scrapes a run.
scrapes_apart() {
	local i
	for ((i = 0; i < 100; i++)); do curl -s -o /dev/null -w '%{time_total}\n' "$1"; done | awk '{ print $1 * 1000 }'
}
# Alternate the two in each run, so that both see the same load.
for ((r = 0; r < RUNS; r++)); do
	scrapes "$url" >"$TMP/exp.$r"
	scrapes "$floor_url" >"$TMP/floor.$r"
	scrapes_apart "$url" >"$TMP/exp_apart.$r"
	scrapes_apart "$floor_url" >"$TMP/floor_apart.$r"
done
run_medians() { local f; for f in "$TMP"/$1.*; do median <"$f"; echo; done | median; }
p99() { cat "$TMP"/$1.* | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int(NR * 0.99)] }'; }
echo "$running running instances, $series GPU series, $(( $(stat -c %s "$TMP/body") / 1024 )) KiB per scrape; vast hanging (provider_up 0); first snapshot served after $ready ms"
echo "later rounds: $later_rounds in the ${WINDOW} s after it (--interval 1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| server | median of $RUNS run medians (200 scrapes each) | p99 of all | target |"
echo "|---|---:|---:|---:|"
echo "| gpurent exporter, one connection | $(run_medians exp) ms | $(p99 exp) ms | < 10 ms |"
echo "| floor: static_serve, the same bytes from memory, one connection | $(run_medians floor) ms | $(p99 floor) ms | |"
echo "| gpurent exporter, a connection per scrape (100 a run) | $(run_medians exp_apart) ms | $(p99 exp_apart) ms | < 10 ms |"
echo "| floor: static_serve, a connection per scrape | $(run_medians floor_apart) ms | $(p99 floor_apart) ms | |"
