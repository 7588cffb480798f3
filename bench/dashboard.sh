#!/bin/bash
# The dashboard's cost at rest and per frame, driven in tmux against the simulator.
#
#   bench/dashboard.sh [BUILD_DIR]        (default: build)
#
# 1. Idle CPU: the dashboard left alone for IDLE_SECONDS (default 30) at the default
#    refresh intervals, once on the offers view and once on the metrics view of a running
#    instance (the fastest refresh); CPU time of the whole process (every thread) from
#    /proc/PID/stat. Target: under 1% of a core.
# 2. Keys: `dashboard --bench-frames N` over about 1,000 offers (BENCH_OFFERS: the
#    simulated market's size, about 92% of it listed): N keys (sort, reverse, scroll),
#    each timed from its handling to the end of its frame (200x60), and each sort until
#    its result is drawn. Then the idle CPU again, on the offers view over that market.
# 3. Keys in tmux (KEY_ROUNDS rounds, default 5): scroll, page, end and back, sort to
#    the next column, reverse, and a filter typed and cleared, sent with tmux send-keys to
#    the dashboard over BENCH_OFFERS offers and, as the floor in the same run, over the
#    default market of about 370 offers; the times come from the dashboard's own trace
#    (GPURENT_UI_TRACE): "key" from reading a key to the end of its frame (wall, and the
#    UI thread's CPU time), "swap" from a sort or filter key until its result is swapped in
#    (drawn in the frame after).
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
	for ((i = 0; i < 1200; i++)); do
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
	[ "$1" = offers ] && wait_screen ' of [0-9]+ offers'
	sleep 3			# let the first fetches (and sort) settle
	pid=$(cat "$work/pid")
	t0=$(cpu_ticks "$pid")
	sleep "$idle"
	t1=$(cpu_ticks "$pid")
	tm kill-session -t b
	awk -v d=$((t1 - t0)) -v hz="$hz" -v s="$idle" 'BEGIN { printf "%.2f", d / hz / s * 100 }'
}

# median and largest of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%.2f ms (max %.2f, n=%d)", m, v[NR], NR }'; }

# keys_trace LABEL: drive the offers view over the current market with keys, from the trace.
keys_trace() {
	local tr=$work/trace-$1 r i n0 key
	rm -f "$tr"
	tm new-session -d -s b -x 200 -y 60 \
	    "GPURENT_UI_TRACE='$tr' \"$gr\" dashboard --view offers"
	wait_screen ' of [0-9]+ offers'
	for ((i = 0; i < 600; i++)); do
		tm capture-pane -p -t b | grep -q 'sorting' || break
		sleep 0.1
	done
	sleep 1
	n0=$(wc -l <"$tr")
	for ((r = 0; r < ${KEY_ROUNDS:-5}; r++)); do
		for key in j j j k Space Space G g '>' i '<' / g p u = h 1 0 0 Enter / C-u Enter; do
			tm send-keys -t b "$key"
			sleep 0.15
			# A sort or filter: wait for its result before the next key (bounded).
			for ((i = 0; i < 300; i++)); do
				tm capture-pane -p -t b | grep -q 'sorting' || break
				sleep 0.05
			done
		done
	done
	tm kill-session -t b
	tail -n +"$((n0 + 1))" "$tr" >"$tr.keys"
	echo "$(awk '$1 == "key" { print $2 }' "$tr.keys" | stats)|$(awk '$1 == "key" { print $3 }' "$tr.keys" | stats)|$(awk '$1 == "swap" { print $2 }' "$tr.keys" | stats)"
}

offer=$("$gr" -o ids offers --limit 1)
"$gr" launch --wait "$offer" >/dev/null
cpu_offers=$(idle_cpu offers)
cpu_metrics=$(idle_cpu metrics)
small_rows=$("$gr" -o ids offers | wc -l)
keys_small=$(keys_trace small)

export GPURENT_SIM_OFFERS=${BENCH_OFFERS:-1090}
rm -rf "$GPURENT_HOME" && mkdir -p "$GPURENT_HOME"
rows=$("$gr" -o ids offers | wc -l)
tm new-session -d -s b -x 200 -y 60 \
    "\"$gr\" dashboard --bench-frames $frames; sleep 30"
wait_screen 'sort result median'
frame=$(tm capture-pane -p -t b | sed -n 's/^dashboard: \(.*\)/\1/p')
tm kill-session -t b
# Idle with that market on the offers view (issue 17 part 5: 100,000 offers, BENCH_OFFERS=110000).
cpu_big=$(idle_cpu offers)
keys_big=$(keys_trace big)
# The same, with the offers' refresh (30 s by default) out of the window: the UI alone.
"$gr" config set dashboard.offers_interval 1h >/dev/null
cpu_big_ui=$(idle_cpu offers)
"$gr" config unset dashboard.offers_interval >/dev/null

echo "| measure | result | target |"
echo "|---|---|---|"
echo "| idle CPU, offers view, ${idle} s | ${cpu_offers}% of a core | < 1% |"
echo "| idle CPU, metrics view (2 s refresh), ${idle} s | ${cpu_metrics}% of a core | < 1% |"
echo "| --bench-frames over $rows offers | $frame | |"
echo "| idle CPU, offers view over $rows offers, ${idle} s (a refresh every 30 s) | ${cpu_big}% of a core | < 1% |"
echo "| idle CPU, the same with offers refreshed hourly, ${idle} s | ${cpu_big_ui}% of a core | < 1% |"
IFS='|' read -r ks_wall ks_cpu ks_swap <<<"$keys_small"
IFS='|' read -r kb_wall kb_cpu kb_swap <<<"$keys_big"
echo "| floor: key to frame over $small_rows offers (tmux), wall | $ks_wall | |"
echo "| floor: the same, UI thread CPU | $ks_cpu | |"
echo "| floor: sort/filter result over $small_rows offers | $ks_swap | |"
echo "| key to frame over $rows offers (tmux), wall | $kb_wall | < 16 ms |"
echo "| the same, UI thread CPU | $kb_cpu | |"
echo "| sort/filter result over $rows offers | $kb_swap | |"
