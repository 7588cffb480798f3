#!/bin/bash
# The dashboard's idle CPU over a large market with the default offers refresh (30 s), the
# figure of issue 17 part 5 ("idles at under 1 % of a core"), for one build or two side by
# side (the second as "before"), with the floor measured in the same window: the same build
# with its offers refresh off (dashboard.offers_interval 1h), the UI alone.
#
#   bench/dashboard-refresh.sh BUILD_DIR [OLD_BUILD_DIR]
#       BENCH_OFFERS (default 110000: about 100,000 listed), IDLE_SECONDS (default 60),
#       RUNS (default 3: the median is reported), SETTLE_SECONDS (default 45)
#
# Each run starts every dashboard at once, each in a tmux session of its own on the offers
# view against the simulator (its clock at real speed: the market does not move within a
# minute); after all of them have their first rows sorted and SETTLE_SECONDS more (by then
# each has asked twice, so the simulator keeps its market: the steady state), the CPU time
# of each whole process (every thread, /proc/PID/stat) over the same IDLE_SECONDS, which
# hold two refreshes. The same window means the same machine load for all of them. The tables
# swapped in and what each offers answer cost the UI thread come from GPURENT_UI_TRACE
# ("unasked": the market's stamp said unchanged, nothing fetched).
set -eu
command -v tmux >/dev/null || { echo "bench/dashboard-refresh.sh: needs tmux" >&2; exit 2; }
idle=${IDLE_SECONDS:-60}
runs=${RUNS:-3}
settle_s=${SETTLE_SECONDS:-45}
work=$(mktemp -d)
sock="gpurent-bench-refresh-$$"
tm() { tmux -u -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export GPURENT_SIM_SEED=1 NO_COLOR=1 LC_ALL=C.UTF-8 GPURENT_SIM_OFFERS=${BENCH_OFFERS:-110000}
unset GPURENT_SIM_TIME GPURENT_SIM_SPEED GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME
hz=$(getconf CLK_TCK)

wait_screen() {	# SESSION PATTERN
	local i
	for ((i = 0; i < 3000; i++)); do
		tm capture-pane -p -t "$1" 2>/dev/null | grep -E -q -- "$2" && return 0
		sleep 0.1
	done
	echo "bench/dashboard-refresh.sh: $1 timed out waiting for '$2'" >&2
	return 1
}

# start NAME BINARY INTERVAL: a dashboard in tmux session NAME, its offers refreshed every
# INTERVAL.
start() {
	local home=$work/$1/home
	rm -rf "${work:?}/$1"
	mkdir -p "$home"
	GPURENT_HOME=$home "$2" config set dashboard.offers_interval "$3" >/dev/null
	GPURENT_HOME=$home "$2" -o ids offers | wc -l >"$work/$1/rows"
	tm new-session -d -s "$1" -x 160 -y 40 "env GPURENT_HOME='$home' \
	    GPURENT_UI_TRACE='$work/$1/trace' sh -c 'echo \$\$ >\"$work/$1/pid\"; \
	    exec \"$2\" dashboard --view offers'"
}

settle() {	# NAME: its first rows on screen and sorted
	local rows i
	rows=$(cat "$work/$1/rows")
	wait_screen "$1" " $rows of $rows offers"
	for ((i = 0; i < 600; i++)); do
		tm capture-pane -p -t "$1" | grep -q 'sorting' || break
		sleep 0.1
	done
}

cpu() { awk '{ print $14 + $15 }' "/proc/$(cat "$work/$1/pid")/stat"; }
swaps() { grep -c '^swap' "$work/$1/trace" || true; }

names=(new floor)
bins=("$(cd "$1" && pwd)/gpurent" "$(cd "$1" && pwd)/gpurent")
ivs=(30s 1h)
if [ -n "${2:-}" ]; then
	names+=(old)
	bins+=("$(cd "$2" && pwd)/gpurent")
	ivs+=(30s)
fi
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < runs; r++)); do
	for i in "${!names[@]}"; do start "${names[$i]}" "${bins[$i]}" "${ivs[$i]}"; done
	for n in "${names[@]}"; do settle "$n"; done
	sleep "$settle_s"
	declare -A t0 s0
	for n in "${names[@]}"; do
		t0[$n]=$(cpu "$n")
		s0[$n]=$(swaps "$n")
		wc -l <"$work/$n/trace" >"$work/$n/trace-from"
	done
	sleep "$idle"
	for n in "${names[@]}"; do
		d=$(($(cpu "$n") - t0[$n]))
		echo "$n $d $(($(swaps "$n") - s0[$n])) $(cat "$work/$n/rows")" >>"$work/results"
		# What each offers answer of the window cost the UI thread (merge lines).
		tail -n +"$(($(cat "$work/$n/trace-from") + 1))" "$work/$n/trace" |
		    awk -v n="$n" '$1 == "same" || $1 == "taken" || $1 == "copied" ||
		    $1 == "unasked" {
		    print n, $1, $3 }' >>"$work/merges"
		tm kill-session -t "$n"
	done
	echo "run $((r + 1)): $(grep -c . "$work/results") measures, load $(cut -d' ' -f1 /proc/loadavg)"
done
echo
# median: the middle of the numbers on stdin (the mean of the two middle ones when even).
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]
	    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "| dashboard | idle CPU over ${idle} s, % of a core: median (runs) | tables swapped in | offers |"
echo "|---|---|---|---|"
for n in "${names[@]}"; do
	pcts=$(awk -v n="$n" -v hz="$hz" -v s="$idle" '$1 == n { printf "%.2f\n", $2 / hz / s * 100 }' \
	    "$work/results")
	printf '| %s | %.2f (%s) | %s | %s |\n' "$n" "$(echo "$pcts" | median)" \
	    "$(echo "$pcts" | tr '\n' ' ' | sed 's/ $//')" \
	    "$(awk -v n="$n" '$1 == n { printf "%s ", $3 }' "$work/results" | sed 's/ $//')" \
	    "$(awk -v n="$n" '$1 == n { r = $4 } END { print r }' "$work/results")"
done
echo
echo "offers answers taken in by the UI thread in the windows (what: count, median UI-thread CPU ms):"
touch "$work/merges"
for k in $(awk '{ print $1 "/" $2 }' "$work/merges" | sort -u); do
	echo "  ${k%/*} ${k#*/}: $(awk -v a="${k%/*}" -v b="${k#*/}" '$1 == a && $2 == b' "$work/merges" |
	    wc -l), $(awk -v a="${k%/*}" -v b="${k#*/}" '$1 == a && $2 == b { print $3 }' \
	    "$work/merges" | median) ms"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
