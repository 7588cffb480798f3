#!/bin/bash
# providers.sh - benchmarks for the real-provider backends (issue 3), against `gpurent sim
# serve`: (1) parallel fan-out over three dialects with 300 ms latency each, against the sum;
# (2) a 10,000-offer vast search fetched, parsed, filtered and printed, against the floor
# (fetching the same body with curl plus parsing it with cJSON alone), time and peak memory.
#
# usage: bench/providers.sh [path/to/gpurent]   (default: build/gpurent)
set -eu
G=$(realpath "${1:-build/gpurent}")
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
export GPURENT_HOME=$TMP/home GPURENT_SIM_SEED=1 NO_COLOR=1
now_ms() { date +%s%3N; }

serve() {	# serve DIALECT ARGS... ; sets URL
	"$G" sim serve --dialect "$1" --port 0 "${@:2}" >"$TMP/$1.out" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do
		URL=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/$1.out")
		[ -n "$URL" ] && return
		sleep 0.1
	done
	echo "sim serve $1 did not start" >&2
	exit 1
}

best_of() {	# best_of N CMD... : the fastest wall time in ms
	local best=999999 t0 t1 i
	for ((i = 0; i < $1; i++)); do
		t0=$(now_ms); "${@:2}" >/dev/null 2>&1 || true; t1=$(now_ms)
		[ $((t1 - t0)) -lt $best ] && best=$((t1 - t0))
	done
	echo $best
}

echo "== fan-out: 3 dialects, 300 ms added latency each =="
for p in vast runpod lambda; do
	serve "$p" --api-key k --latency 300
	up=$(tr '[:lower:]' '[:upper:]' <<<"$p")
	export "GPURENT_${up}_URL=$URL" "GPURENT_${up}_API_KEY=k"
done
sum=0 slowest=0
for p in vast runpod lambda; do
	t=$(best_of 5 "$G" --provider "$p" -o json offers gpus=1)
	echo "$p alone: $t ms"
	sum=$((sum + t))
	[ "$t" -gt "$slowest" ] && slowest=$t
done
all=$(best_of 5 "$G" --provider vast --provider runpod --provider lambda -o json offers gpus=1)
echo "all three at once: $all ms; sum of the three: $sum ms; slowest: $slowest ms"
echo "ratio to slowest: $(awk "BEGIN { printf \"%.2f\", $all / $slowest }") (target <= 1.2)"
for p in "${PIDS[@]}"; do kill "$p"; done
PIDS=()

echo "== 10,000-offer vast search =="
export GPURENT_HOME=$TMP/home2
# About 70% of the simulated market is on demand: 14,300 offers give 10,000 to search.
export GPURENT_SIM_OFFERS=14300
serve vast --api-key k
export GPURENT_VAST_URL=$URL GPURENT_VAST_API_KEY=k
Q='{"verified":{"eq":true},"external":{"eq":false},"rentable":{"eq":true},"rented":{"eq":false},"order":[["dph_total","asc"]],"type":"on-demand","allocated_storage":10,"limit":10000}'
# Everything is rentable for the count: the server is warmed and the body saved once.
curl -s -o "$TMP/body.json" -H 'Authorization: Bearer k' -H 'Content-Type: application/json' \
	-d "$Q" "$URL/api/v0/bundles/"
n=$(jq '.offers | length' "$TMP/body.json")
echo "offers in the body: $n ($(du -k "$TMP/body.json" | cut -f1) KiB)"
cc -O2 -o "$TMP/floor" "$HERE/cjson_floor.c" $(pkg-config --cflags --libs libcjson)
fetch=$(best_of 5 curl -s -o "$TMP/b2.json" -H 'Authorization: Bearer k' \
	-H 'Content-Type: application/json' -d "$Q" "$URL/api/v0/bundles/")
parse=$(for i in 1 2 3 4 5; do "$TMP/floor" "$TMP/body.json"; done | sort -n | head -1)
floor=$(awk "BEGIN { printf \"%.0f\", $fetch + $parse }")
# The client gets its own state directory so it never waits on the server's database.
# The same search as the floor's: on-demand only, one request.
full=$(GPURENT_HOME=$TMP/client best_of 5 "$G" --provider vast -o json offers type=on-demand)
echo "fetch (curl): $fetch ms; cJSON parse: $parse ms; floor: $floor ms"
echo "gpurent offers (fetch, parse, filter, print JSON): $full ms"
echo "ratio to floor: $(awk "BEGIN { printf \"%.2f\", $full / $floor }") (target <= 1.3)"
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
mf=$(rss "$TMP/floor" "$TMP/body.json")
mg=$(GPURENT_HOME=$TMP/client rss "$G" --provider vast -o json offers type=on-demand)
echo "peak RSS: floor $mf KiB, gpurent $mg KiB, ratio $(awk "BEGIN { printf \"%.2f\", $mg / $mf }") (target <= 1.3)"
