#!/usr/bin/env bash
# bench/slurm.sh BUILD [NODES...] - Slurm offers against a generated cluster (issue 15).
#
# bench/slurm-gen.py writes a slurmrestd v0.0.38 cluster of NODES nodes (default 1000; each
# node shaped like the recorded tests/data/slurm/nodes.json), bench/slurm_serve.c answers
# its four paths from memory, and three clients run RUNS times (default 7, median wall):
#   (a) curl GET of /nodes alone
#   (b) bench/fetch_parse_floor.c: /nodes fetched and parsed once with cJSON
#   gpurent --provider slurm -o json offers (openapi, nodes, partitions and jobs fetched,
#       parsed, mapped, filtered, sorted and printed)
# The issue's bar: gpurent within 1.3x of (b). CALLGRIND=1 adds each client's instructions.
set -eu
BUILD=${1:?usage: bench/slurm.sh BUILD [NODES...]}
shift
SIZES=("${@:-1000}")
RUNS=${RUNS:-7}
HERE=$(cd "$(dirname "$0")" && pwd)
G=$(cd "$BUILD" && pwd)/gpurent
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

cc -O2 -o "$TMP/slurm_serve" "$HERE/slurm_serve.c" $(pkg-config --cflags --libs libmicrohttpd) -lpthread
cc -O2 -o "$TMP/floor" "$HERE/fetch_parse_floor.c" $(pkg-config --cflags --libs libcurl libcjson)

median_ms() {
	local i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000 }'
}

# Median CPU time (user + system) in ms: on a loaded machine the wall clock mostly measures
# the wait for a core, CPU time what the client itself spends.
median_cpu_ms() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1
	done | awk '{ print ($1 + $2) * 1000 }' | sort -n |
		awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f", m }'
}

# Median task-clock in ms from perf stat (CPU time to the microsecond, where /usr/bin/time
# counts 10 ms ticks); "-" without perf.
median_task_ms() {
	local i
	command -v perf >/dev/null || { echo -; return; }
	for ((i = 0; i < RUNS; i++)); do
		perf stat -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '$3 == "task-clock" { print $1 }'
	done | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m }'
}

# Instructions of one run under callgrind (all threads): the figure a loaded machine leaves
# alone. Only with CALLGRIND=1.
instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" >/dev/null 2>"$TMP/cg.err"
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.err"
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each"
echo "| nodes | /nodes body | (a) curl | (b) curl + cJSON | gpurent offers | gpurent / (b) | CPU (b) | CPU gpurent | CPU / (b) | task-clock (b) | task-clock gpurent | / (b) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in "${SIZES[@]}"; do
	mkdir -p "$TMP/$n" "$TMP/home-$n"
	python3 "$HERE/slurm-gen.py" "$n" "$TMP/$n"
	"$TMP/slurm_serve" "$TMP/$n" >"$TMP/serve-$n.out" &
	PIDS+=($!)
	for ((i = 0; i < 100; i++)); do grep -q port "$TMP/serve-$n.out" && break; sleep 0.1; done
	url="http://127.0.0.1:$(sed -n 's/^port //p' "$TMP/serve-$n.out")"
	export GPURENT_HOME=$TMP/home-$n GPURENT_SLURM_URL=$url SLURM_JWT=bench-token
	"$G" --provider slurm -o json offers >/dev/null	# creates the database
	# A floor that fails measures nothing (before 2026-12-02 it POSTed and got no body).
	"$TMP/floor" "$url/slurm/v0.0.38/nodes" GET >/dev/null ||
		{ echo "bench: the floor could not fetch and parse /nodes" >&2; exit 1; }
	a=$(median_ms curl -s "$url/slurm/v0.0.38/nodes" -o /dev/null)
	b=$(median_ms "$TMP/floor" "$url/slurm/v0.0.38/nodes" GET)
	c=$(median_ms "$G" --provider slurm -o json offers)
	cb=$(median_cpu_ms "$TMP/floor" "$url/slurm/v0.0.38/nodes" GET)
	cc=$(median_cpu_ms "$G" --provider slurm -o json offers)
	tb=$(median_task_ms "$TMP/floor" "$url/slurm/v0.0.38/nodes" GET)
	tc=$(median_task_ms "$G" --provider slurm -o json offers)
	echo "| $n | $(($(stat -c %s "$TMP/$n/nodes.json") / 1024)) KiB | $a ms | $b ms | $c ms |" \
		"$(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.2f", c / b }') | $cb ms | $cc ms |" \
		"$(awk -v b="$cb" -v c="$cc" 'BEGIN { printf "%.2f", c / b }') |" \
		"$tb ms | $tc ms | $(awk -v b="$tb" -v c="$tc" 'BEGIN { if (b + 0 > 0) printf "%.2f", c / b; else printf "-" }') |"
	if [ -n "${CALLGRIND:-}" ]; then
		ib=$(instructions "$TMP/floor" "$url/slurm/v0.0.38/nodes" GET)
		ic=$(instructions "$G" --provider slurm -o json offers)
		echo "instructions (callgrind): (b) $ib, gpurent $ic," \
		    "$(awk -v b="$ib" -v c="$ic" 'BEGIN { printf "%.2f", c / b }')x"
	fi
	kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
	unset 'PIDS[-1]'
done
