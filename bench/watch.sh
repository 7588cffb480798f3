#!/bin/bash
# watch.sh - the watcher's cost (issue 14 part 7): (1) the CPU time of one pass over 200
# instances on three providers (vast, runpod and lambda dialects of `gpurent sim serve`, one
# world each), against the floor of listing the same instances (`gpurent ls`, the same
# fan-out, no decisions); (2) the CPU the watcher uses between passes.
#
# usage: bench/watch.sh [path/to/gpurent]   (default: build/gpurent; RUNS=N, default 5)
set -eu
G=$(realpath "${1:-build/gpurent}")
RUNS=${RUNS:-5}
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
export GPURENT_SIM_SEED=1 NO_COLOR=1 GPURENT_SIM_OFFERS=2000
unset GPURENT_SIM_TIME GPURENT_SIM_SPEED

serve() {	# serve DIALECT: a server over a world of its own; sets URL
	mkdir -p "$TMP/$1"
	GPURENT_HOME=$TMP/$1 "$G" sim serve --dialect "$1" --port 0 --api-key k \
		>"$TMP/$1.out" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do
		URL=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/$1.out")
		[ -n "$URL" ] && return
		sleep 0.1
	done
	echo "sim serve $1 did not start" >&2
	exit 1
}

# cpu_ms CMD...: user + system CPU time of one run, in milliseconds.
cpu_ms() {
	/usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 |
		awk '{ printf "%d\n", ($1 + $2) * 1000 }'
}

# median_cpu CMD...: the median over RUNS rounds of the CPU time of one run, each round
# timing 5 runs together (the clock counts in 10 ms ticks).
median_cpu() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		cpu_ms bash -c 'for k in 1 2 3 4 5; do "$@" >/dev/null 2>&1; done' _ "$@"
	done | sort -n | awk '{ v[NR] = $1 / 5 } END { print v[int((NR + 1) / 2)] }'
}

export GPURENT_HOME=$TMP/client
for p in vast runpod lambda; do
	serve "$p"
	up=$(tr '[:lower:]' '[:upper:]' <<<"$p")
	export "GPURENT_${up}_URL=$URL" "GPURENT_${up}_API_KEY=k"
done
"$G" config set providers vast,runpod,lambda >/dev/null
per=(67 67 66)
i=0
for p in vast runpod lambda; do
	n=${per[$i]}
	i=$((i + 1))
	# More offers than needed: some have no machine free.
	mapfile -t offers < <("$G" --provider "$p" -o ids offers type=on-demand | head -n $((2 * n)))
	k=0
	for o in "${offers[@]}"; do
		[ "$k" -lt "$n" ] || break
		"$G" launch "$o" --label "bench-$p" >/dev/null 2>&1 && k=$((k + 1))
	done
done
count=$("$G" -o ids ls | wc -l)
echo "instances: $count on three providers ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
# Policies that are evaluated for every instance but act on none.
"$G" config set idle.after 1d >/dev/null
"$G" config set runtime.max 30d >/dev/null
"$G" config set budget.day 100000 >/dev/null
"$G" watch --once >/dev/null 2>&1 || true	# the first pass writes the state of each

floor=$(median_cpu "$G" -o json ls)
pass=$(median_cpu "$G" watch --once)
echo "== one pass over $count instances (CPU time, median of $RUNS) =="
echo "floor (gpurent ls, the same listing): $floor ms"
echo "gpurent watch --once: $pass ms (target: well under 1000 ms)"
echo "the watcher's own work: $((pass - floor)) ms"

echo "== idle between passes =="
"$G" watch --interval 1h >/dev/null 2>"$TMP/w.err" &
# (the watcher sleeps through its interval in one call: it should use no CPU at all)
w=$!
PIDS+=($w)
# The first pass: wait until its CPU time stops moving (bounded).
prev=-1
for _ in $(seq 100); do
	sleep 0.5
	cur=$(awk '{ print $14 + $15 }' "/proc/$w/stat")
	[ "$cur" = "$prev" ] && break
	prev=$cur
done
t0=$(awk '{ print $14 + $15 }' "/proc/$w/stat")
sleep 20
t1=$(awk '{ print $14 + $15 }' "/proc/$w/stat")
hz=$(getconf CLK_TCK)
echo "CPU used by the waiting watcher in 20 s: $((t1 - t0)) ticks of 1/$hz s"
