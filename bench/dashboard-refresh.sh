#!/bin/bash
# The dashboard's idle CPU over a large market with the default offers refresh (30 s), the
# figure of issue 17 part 5 ("idles at under 1 % of a core"), for one build or two side by
# side (the second as "before", measured in the same run).
#
#   bench/dashboard-refresh.sh BUILD_DIR [OLD_BUILD_DIR]
#       BENCH_OFFERS (default 110000: about 100,000 listed), IDLE_SECONDS (default 60)
#
# The dashboard runs in tmux on the offers view against the simulator (its clock at real
# speed: the market does not move within a minute); after its first rows are sorted and 15 s
# more, the CPU time of the whole process (every thread, /proc/PID/stat) over IDLE_SECONDS,
# which holds two refreshes. The tables swapped in meanwhile come from GPURENT_UI_TRACE.
set -eu
command -v tmux >/dev/null || { echo "bench/dashboard-refresh.sh: needs tmux" >&2; exit 2; }
idle=${IDLE_SECONDS:-60}
work=$(mktemp -d)
sock="gpurent-bench-refresh-$$"
tm() { tmux -u -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$work"' EXIT
export GPURENT_SIM_SEED=1 NO_COLOR=1 LC_ALL=C.UTF-8 GPURENT_SIM_OFFERS=${BENCH_OFFERS:-110000}
unset GPURENT_SIM_TIME GPURENT_SIM_SPEED GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME
hz=$(getconf CLK_TCK)

wait_screen() {
	local i
	for ((i = 0; i < 3000; i++)); do
		tm capture-pane -p -t b 2>/dev/null | grep -E -q -- "$1" && return 0
		sleep 0.1
	done
	echo "bench/dashboard-refresh.sh: timed out waiting for '$1'" >&2
	return 1
}

# measure BINARY: "CPU% swaps rows"
measure() {
	local gr=$1 pid t0 t1 s0 s1 i rows
	export GPURENT_HOME=$work/home-$2 GPURENT_UI_TRACE=$work/trace-$2
	mkdir -p "$GPURENT_HOME"
	rows=$("$gr" -o ids offers | wc -l)
	tm new-session -d -s b -x 160 -y 40 \
	    "sh -c 'echo \$\$ >\"$work/pid\"; exec \"$gr\" dashboard --view offers'"
	wait_screen " $rows of $rows offers"
	for ((i = 0; i < 600; i++)); do
		tm capture-pane -p -t b | grep -q 'sorting' || break
		sleep 0.1
	done
	sleep 15
	pid=$(cat "$work/pid")
	s0=$(grep -c '^swap' "$GPURENT_UI_TRACE" || true)
	t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	sleep "$idle"
	t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	s1=$(grep -c '^swap' "$GPURENT_UI_TRACE" || true)
	tm kill-session -t b
	awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$idle" -v sw=$((s1 - s0)) -v r="$rows" \
	    'BEGIN { printf "%.2f%% of a core, %.2f s of CPU, %d tables swapped in, %d offers",
	    d / hz / s * 100, d / hz, sw, r }'
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| build | idle CPU over ${idle} s, default offers refresh (30 s) |"
echo "|---|---|"
echo "| $1 | $(measure "$(cd "$1" && pwd)/gpurent" new) |"
[ -n "${2:-}" ] && echo "| $2 (before) | $(measure "$(cd "$2" && pwd)/gpurent" old) |"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
