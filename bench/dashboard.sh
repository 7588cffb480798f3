#!/bin/bash
# The dashboard's cost at rest and per frame, driven in tmux against the simulator.
#
#   bench/dashboard.sh [BUILD_DIR]        (default: build)
#
# 1. Idle CPU: the dashboard left alone for IDLE_SECONDS (default 30) at the default
#    refresh intervals, once on the offers view and once on the metrics view of a running
#    instance (the fastest refresh); CPU time of the whole process (every thread) from
#    /proc/PID/stat. Target: under 1% of a core.
# 2. Frame time: `dashboard --bench-frames N` over about 1,000 offers (BENCH_OFFERS: the
#    simulated market's size, about 64% of it on demand); each frame filters, sorts and
#    formats every row, then draws and flushes the screen (200x60): what a sort or filter
#    key costs. Then the idle CPU again, on the offers view over that market.
# Prints a Markdown table for bench/README.md. Timings are measured, never asserted.
set -eu

build=${1:-build}
gr=$(cd "$build" && pwd)/gpurent
idle=${IDLE_SECONDS:-30}
frames=${FRAMES:-200}
[ -x "$gr" ] || { echo "bench/dashboard.sh: no binary at $gr" >&2; exit 2; }
command -v tmux >/dev/null || { echo "bench/dashboard.sh: needs tmux" >&2; exit 2; }

work=$(mktemp -d)
sock="gpurent-bench-$$"
tm() { tmux -u -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
export GPURENT_HOME=$work/home GPURENT_SIM_SEED=1 NO_COLOR=1 LC_ALL=C.UTF-8
unset GPURENT_SIM_OFFERS GPURENT_SIM_TIME GPURENT_SIM_SPEED GPURENT_PROFILE XDG_CONFIG_HOME \
	XDG_STATE_HOME
mkdir -p "$GPURENT_HOME"
hz=$(getconf CLK_TCK)

wait_screen() {
	local i
	for ((i = 0; i < 100; i++)); do
		tm capture-pane -p -t b 2>/dev/null | grep -E -q -- "$1" && return 0
		sleep 0.1
	done
	echo "bench/dashboard.sh: timed out waiting for '$1'" >&2
	return 1
}

# CPU seconds (user + system, all threads) of a process.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# idle_cpu VIEW: percent of one core used over $idle seconds.
idle_cpu() {
	local pid t0 t1
	tm new-session -d -s b -x 120 -y 40 \
	    "sh -c 'echo \$\$ >\"$work/pid\"; exec \"$gr\" dashboard --view $1'"
	wait_screen '^ burn '
	sleep 3			# let the first fetches settle
	pid=$(cat "$work/pid")
	t0=$(cpu_ticks "$pid")
	sleep "$idle"
	t1=$(cpu_ticks "$pid")
	tm kill-session -t b
	awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$idle" 'BEGIN { printf "%.2f", d / hz / s * 100 }'
}

offer=$("$gr" -o ids offers --limit 1)
"$gr" launch --wait "$offer" >/dev/null
cpu_offers=$(idle_cpu offers)
cpu_metrics=$(idle_cpu metrics)

export GPURENT_SIM_OFFERS=${BENCH_OFFERS:-1090}
rm -rf "$GPURENT_HOME" && mkdir -p "$GPURENT_HOME"
rows=$("$gr" -o ids offers | wc -l)
tm new-session -d -s b -x 200 -y 60 \
    "\"$gr\" dashboard --bench-frames $frames; sleep 30"
wait_screen 'ms per frame'
frame=$(tm capture-pane -p -t b | sed -n 's/^dashboard: \(.*\)/\1/p')
tm kill-session -t b
# Idle with that market on the offers view (issue 17 part 5: 100,000 offers, BENCH_OFFERS=157000).
cpu_big=$(idle_cpu offers)

echo "| measure | result | target |"
echo "|---|---|---|"
echo "| idle CPU, offers view, ${idle} s | ${cpu_offers}% of a core | < 1% |"
echo "| idle CPU, metrics view (2 s refresh), ${idle} s | ${cpu_metrics}% of a core | < 1% |"
echo "| frame over $rows offers | $frame | |"
echo "| idle CPU, offers view over $rows offers, ${idle} s | ${cpu_big}% of a core | < 1% |"
