#!/bin/bash
# replay.sh - gpurent's offers search against two floors, on the same saved reply bytes.
#
#   bench/replay.sh BUILD_DIR [OFFERS...]      (default: 1000 10000 100000; RUNS=N, default 5)
#   DIALECT=runpod|lambda bench/replay.sh BUILD_DIR [TYPES...]   (default: 0 1000 10000)
#
# RunPod and Lambda answer one element per GPU type, and the simulator's market has a few
# dozen types: size 0 replays its reply as it is; a size N repeats its elements (ids and
# names suffixed -<i>, so each stays distinct) until the reply holds N types, to show how
# the parse grows. Each RunPod type gives up to 8 offers (4 counts x 2 clouds), each Lambda
# type one per region with capacity.
#
# For each size N: `gpurent sim serve --dialect vast` answers one on-demand search with
# every on-demand offer (GPURENT_SIM_OFFERS=1.57N: about 64% of the market is on demand, so
# the reply holds about N offers); that reply is saved and from then on served by
# bench/static_serve.c (libmicrohttpd, the body answered from memory without a copy), so
# the server costs nothing per request. Three clients fetch it, one after another, RUNS
# times each; reported are the median wall time, the median CPU time (perf stat's
# task-clock, all threads) and the largest peak RSS:
#   (a) curl -s URL -o /dev/null                 the fetch alone, libcurl start-up included
#   (b) bench/fetch_parse_floor.c                libcurl into memory + one cJSON parse
#   gpurent --provider vast -o json offers type=on-demand  > /dev/null
# With CALLGRIND=1 each client also runs once under callgrind; its instruction count is
# printed (the machine may be loaded: instructions do not depend on that).
set -euo pipefail
BUILD=${1:?usage: bench/replay.sh BUILD_DIR [OFFERS...]}
shift
DIALECT=${DIALECT:-vast}
case $DIALECT in
vast) SIZES=("${@:-1000 10000 100000}") ;;
runpod | lambda) SIZES=("${@:-0 1000 10000}") ;;
*) echo "replay.sh: DIALECT is vast, runpod or lambda" >&2; exit 2 ;;
esac
read -r -a SIZES <<<"${SIZES[*]}"
RUNS=${RUNS:-5}
G=$(cd "$BUILD" && pwd)/gpurent
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

cc -O2 -o "$TMP/static_serve" "$HERE/static_serve.c" $(pkg-config --cflags --libs libmicrohttpd) -lpthread
cc -O2 -o "$TMP/floor" "$HERE/fetch_parse_floor.c" $(pkg-config --cflags --libs libcurl libcjson)

# Start a server (its stdout to FILE), wait for PATTERN there; echoes nothing.
start() {
	local out=$1 pat=$2 i
	shift 2
	"$@" >"$out" 2>"$out.err" &
	PIDS+=($!)
	for ((i = 0; i < 100; i++)); do
		grep -q "$pat" "$out" && return 0
		sleep 0.1
	done
	cat "$out.err" >&2
	return 1
}

# Median wall time in ms of RUNS runs of a command (output discarded).
median_ms() {
	local i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1000 }'
}

# Median CPU time in ms (every thread, user and system: perf's task-clock) of RUNS runs. The
# machine is shared: CPU time is far less disturbed by the load than wall time.
median_cpu_ms() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		perf stat -x, -e task-clock -o "$TMP/perf.out" -- "$@" >/dev/null 2>&1
		sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1/p' "$TMP/perf.out"
	done | sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m }'
}

# Largest peak RSS in KiB over 3 runs.
peak_kib() {
	local i
	for ((i = 0; i < 3; i++)); do
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
	done | sort -n | tail -1
}

instructions() {
	valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" "$@" >/dev/null 2>"$TMP/cg.err"
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$TMP/cg.err"
}

# Start `sim serve` in the dialect and save its reply to one offers search as reply-N.json.
serve_sim() {
	local n=$1
	shift
	GPURENT_HOME=$TMP/sim-$n start "$TMP/sim-$n.out" listening \
	    "$@" "$G" sim serve --dialect "$DIALECT" --port 0 --api-key k
}
stop_sim() {
	kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
	unset 'PIDS[-1]'
}
record_vast() {
	local n=$1 url
	serve_sim "$n" env GPURENT_SIM_OFFERS=$((n * 157 / 100))
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/sim-$n.out")
	curl -sf -o "$TMP/reply-$n.json" -H 'Authorization: Bearer k' \
	    -H 'Content-Type: application/json' \
	    -d "{\"type\":\"on-demand\",\"limit\":$((n * 2)),\"rentable\":{\"eq\":true}}" \
	    "$url/api/v0/bundles/"
	stop_sim
}
# The query gpurent sends (runpod_build_offers_query with no filter: counts 1, 2, 4, 8).
runpod_query() {
	local q='query GpuTypes { gpuTypes { id displayName memoryInGb secureCloud communityCloud' n c
	for n in 1 2 4 8; do
		for c in true false; do
			q="$q $([ $c = true ] && echo s || echo c)$n: lowestPrice(input: {gpuCount: $n, secureCloud: $c}) { uninterruptablePrice minimumBidPrice stockStatus maxUnreservedGpuCount minVcpu minMemory minDownload countryCode }"
		done
	done
	jq -cn --arg q "$q } }" '{query: $q, variables: {}}'
}
record_runpod() {
	local n=$1 url
	serve_sim "$n"
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/sim-$n.out")
	curl -sf -o "$TMP/sim-reply.json" -H 'Authorization: Bearer k' \
	    -H 'Content-Type: application/json' -d "$(runpod_query)" "$url/graphql"
	stop_sim
	jq -c --argjson n "$n" 'if $n == 0 then . else .data.gpuTypes as $t |
	    .data.gpuTypes = [range(0; $n) as $i | $t[$i % ($t | length)] |
	    .id = (.id + "-\($i)")] end' "$TMP/sim-reply.json" >"$TMP/reply-$n.json"
}
record_lambda() {
	local n=$1 url
	serve_sim "$n"
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/sim-$n.out")
	curl -sf -o "$TMP/sim-reply.json" -H 'Authorization: Bearer k' "$url/api/v1/instance-types"
	stop_sim
	jq -c --argjson n "$n" 'if $n == 0 then . else (.data | to_entries) as $t |
	    .data = ([range(0; $n) as $i | $t[$i % ($t | length)] |
	    .key = (.key + "-\($i)") | .value.instance_type.name = .key] | from_entries) end' \
	    "$TMP/sim-reply.json" >"$TMP/reply-$n.json"
}
case $DIALECT in
vast)
	COUNT='.offers | length' UNIT=offers PATH_=/api/v0/bundles/
	GCMD="$G --provider vast -o json offers type=on-demand" ;;
runpod)
	COUNT='.data.gpuTypes | length' UNIT=types PATH_=/graphql
	GCMD="$G --provider runpod -o json offers" ;;
lambda)
	COUNT='.data | length' UNIT=types PATH_=/api/v1/instance-types
	GCMD="$G --provider lambda -o json offers" ;;
esac

echo "dialect $DIALECT; machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each"
printf '| offers | body | client | median wall | median CPU | peak RSS |%s\n' "${CALLGRIND:+ instructions |}"
printf '|---:|---:|---|---:|---:|---:|%s\n' "${CALLGRIND:+---:|}"
for n in "${SIZES[@]}"; do
	mkdir -p "$TMP/sim-$n" "$TMP/client-$n"
	record_$DIALECT "$n"
	start "$TMP/static-$n.out" port "$TMP/static_serve" "$TMP/reply-$n.json"
	url="http://127.0.0.1:$(sed -n 's/^port //p' "$TMP/static-$n.out")"
	got=$(jq "$COUNT" "$TMP/reply-$n.json")
	body="$got $UNIT, $(( $(stat -c %s "$TMP/reply-$n.json") / 1024 )) KiB"
	up=$(printf '%s' "$DIALECT" | tr '[:lower:]' '[:upper:]')
	export GPURENT_HOME=$TMP/client-$n "GPURENT_${up}_URL=$url" "GPURENT_${up}_API_KEY=k"
	$GCMD >/dev/null	# creates the database
	while read -r name cmd; do
		# shellcheck disable=SC2086  # cmd is a word list
		row="| $n | $body | $name | $(median_ms $cmd) ms | $(median_cpu_ms $cmd) ms | $(peak_kib $cmd) KiB |"
		if [ -n "${CALLGRIND:-}" ]; then
			# shellcheck disable=SC2086
			row="$row $(instructions $cmd) |"
		fi
		echo "$row"
	done <<EOC
(a)_curl curl -s -X POST -d {} $url$PATH_ -o /dev/null
(b)_curl+cJSON $TMP/floor $url$PATH_
gpurent $GCMD
EOC
	kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
	unset 'PIDS[-1]'
done
