#!/bin/bash
# team-store.sh - `costs`, `ls -o json` and the dashboard's costs lane over a team store of
# 1,000 instances, on SQLite and on PostgreSQL (over its unix socket and over 127.0.0.1 TCP),
# as medians of several runs (issue 31: within 2x of SQLite).
#
#   bench/team-store.sh [BUILD_DIR]     (default: build; RUNS=N, default 7; DASH_RUNS=N, the
#                                        dashboard's answers, default 3; SEGS_PER_DAY=N,
#                                        default 2; OLD="BINARY..." times other gpurents
#                                        beside this one, on the same databases: before)
#
# The state is bench/scale.sh's (1,000 running instances of the simulator, a year of their
# billing: 730,000 ledger rows with the default) and one pass of `gpurent watch --once` (a
# sample of each of their 3,710 GPUs), in a SQLite file; `gpurent state migrate
# --to` then copies it into a PostgreSQL server of the bench's own (tests/pg/server), and
# the same home is used with GPURENT_STATE_URL naming it. The simulator's world stays in the
# file either way (it is the provider, not the store), so `ls` times the simulator's listing
# of its 1,000 instances from the file plus what the store adds (each instance's cost from
# the ledger, the id cache written for completion): the store's part is what differs
# between the columns. `costs` asks the simulator for its balance (the same file) and reads
# the rest from the store. The dashboard's figure is the costs lane's own time per answer
# (GPURENT_UI_TRACE's "costs" lines: the costs by provider and label, events, the audit
# line, managed jobs), a dashboard on the costs view refreshing every second, its first
# answer (the connection and schema check) left out.
#
# Wall time is the figure PostgreSQL is judged by (the server's work is not the client's
# CPU); on a shared machine it moves with the others' load, so the runs of every column are
# interleaved and the load average is printed. The statements each command sends (the
# server's log, log_statement = all) are printed too: they do not depend on the load.
set -eu
build=${1:-build}
gr=$(cd "$build" && pwd)/gpurent
runs=${RUNS:-7}
dash_runs=${DASH_RUNS:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$gr" ] || { echo "bench/team-store.sh: no binary at $gr" >&2; exit 2; }
command -v tmux >/dev/null || { echo "bench/team-store.sh: needs tmux" >&2; exit 2; }
work=$(mktemp -d)
sock="gpurent-bench-team-$$"
tm() { tmux -u -L "$sock" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true; "$src/tests/pg/server" stop "$work/pg"; rm -rf "$work"' EXIT

SCALE_DIR=$work/state STATE_ONLY=1 "$src/bench/scale.sh" "$build"
"$src/tests/pg/server" start "$work/pg"
. "$work/pg/env"
now=1767225600
export GPURENT_HOME=$work/state/home GPURENT_SIM_SEED=1 GPURENT_SIM_TIME=$((now + 86400 * 14 + 3600 * 9))
export NO_COLOR=1 LC_ALL=C.UTF-8
unset GPURENT_SIM_OFFERS GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME GPURENT_STATE_URL
"$gr" watch --once >/dev/null	# a sample of every GPU, the watcher's record of each instance
"$gr" state migrate --to "$GPURENT_TEST_PG_SOCKET_URL" >/dev/null

targets=(sqlite socket tcp)
url_of() {
	case $1 in
	sqlite) echo "" ;;
	socket) echo "$GPURENT_TEST_PG_SOCKET_URL" ;;
	tcp) echo "$GPURENT_TEST_PG_URL" ;;
	esac
}
read -r -a old <<<"${OLD:-}"
bins=("$gr" "${old[@]}")

# times NAME COMMAND...: RUNS runs of COMMAND for each binary and target, interleaved, into
# $work/t.NAME.BIN.TARGET (wall ms, CPU ms a line). The wall is bash's clock in microseconds
# around the command alone (time(1)'s %e counts in hundredths, and time(1) itself adds its
# own start to every figure); the CPU is time(1)'s, from a second run beside it.
times() {
	local name=$1 i b t t0 t1
	shift
	for ((i = 0; i < runs; i++)); do
		for b in "${!bins[@]}"; do
			for t in "${targets[@]}"; do
				t0=$EPOCHREALTIME
				GPURENT_STATE_URL=$(url_of "$t") "${bins[$b]}" "$@" >/dev/null 2>&1
				t1=$EPOCHREALTIME
				GPURENT_STATE_URL=$(url_of "$t") /usr/bin/time -f '%U %S' \
					-o "$work/time" "${bins[$b]}" "$@" >/dev/null 2>&1
				awk -v a="$t0" -v z="$t1" \
				    '{ printf "%.1f %.0f\n", (z - a) * 1000, ($1 + $2) * 1000 }' \
					"$work/time" >>"$work/t.$name.$b.$t"
			done
		done
	done
}

median() {	# FILE COLUMN (0 where there are no figures)
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { printf "%.1f", v[int((NR + 1) / 2)] }'
}

# The costs lane of a dashboard on target, asked every second: DASH_RUNS answers after the
# first into $work/t.dashboard.BIN.TARGET (at most 5 minutes; none from a gpurent whose
# trace has no "costs" lines, older than this bench, after a minute).
dashboard() {	# BIN TARGET
	local name=d$1$2 trace=$work/trace.$1.$2 i got
	tm new-session -d -s "$name" -x 160 -y 40 "env GPURENT_STATE_URL='$(url_of "$2")' \
	    GPURENT_UI_TRACE='$trace' '${bins[$1]}' dashboard --view costs --refresh 1"
	for ((i = 0; i < 3000; i++)); do
		got=$(grep -c '^costs ' "$trace" 2>/dev/null || true)
		[ "${got:-0}" -gt "$dash_runs" ] && break
		[ "${got:-0}" = 0 ] && [ "$i" -ge 600 ] && break
		sleep 0.1
	done
	tm kill-session -t "$name"
	grep '^costs ' "$trace" | sed -n "2,$((dash_runs + 1))p" | awk '{ printf "%.0f 0\n", $2 }' \
		>"$work/t.dashboard.$1.$2"
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
times version version
times events events
times costs costs
times ls ls -o json
for b in "${!bins[@]}"; do
	for t in "${targets[@]}"; do dashboard "$b" "$t"; done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# Statements each command sends to the server, counted in its log.
psql -q "$GPURENT_TEST_PG_URL" -c "ALTER SYSTEM SET log_statement = 'all'" \
	-c "SELECT pg_reload_conf()" >/dev/null
statements() {
	local before
	sleep 0.5
	before=$(grep -a -c -E 'LOG:  (statement|execute)' "$GPURENT_TEST_PG_LOG" || true)
	GPURENT_STATE_URL=$GPURENT_TEST_PG_SOCKET_URL "$@" >/dev/null 2>&1
	echo $(($(grep -a -c -E 'LOG:  (statement|execute)' "$GPURENT_TEST_PG_LOG" || true) - before))
}

echo "machine: $(nproc) CPUs, load average $load0 before, $load1 after; $runs runs each"
echo "ledger rows: $(sqlite3 "$GPURENT_HOME/state.db" 'SELECT count(*) FROM ledger'), instances:" \
    "$(sqlite3 "$GPURENT_HOME/state.db" 'SELECT count(*) FROM sim_instances')"
echo
printf '| command | SQLite | PostgreSQL, socket | PostgreSQL, TCP | socket / SQLite | TCP / SQLite |'
echo
echo "|---|---:|---:|---:|---:|---:|"
for b in "${!bins[@]}"; do
	tag=""
	[ "$b" -gt 0 ] && tag="before ($b): "
	for n in version events costs ls dashboard; do
		case $n in
		version) label="floor: gpurent version" ;;
		events) label="floor: gpurent events (the state opened, one read)" ;;
		costs) label="gpurent costs" ;;
		ls) label="gpurent ls -o json" ;;
		dashboard) label="dashboard, costs lane per answer" ;;
		esac
		s=$(median "$work/t.$n.$b.sqlite" 1)
		p=$(median "$work/t.$n.$b.socket" 1)
		q=$(median "$work/t.$n.$b.tcp" 1)
		awk -v l="$tag$label" -v s="$s" -v p="$p" -v q="$q" 'BEGIN {
			if (s == 0 || p == 0 || q == 0)
				printf "| %s | - | - | - | - | - |\n", l
			else
				printf "| %s | %.1f ms | %.1f ms | %.1f ms | %.2fx | %.2fx |\n", l, s,
				    p, q, p / s, q / s }'
	done
done
echo
echo "median CPU (user + system) of the client, ms: " \
    "$(for n in costs ls; do printf '%s %s/%s/%s  ' "$n" "$(median "$work/t.$n.0.sqlite" 2)" \
    "$(median "$work/t.$n.0.socket" 2)" "$(median "$work/t.$n.0.tcp" 2)"; done)"
echo
for b in "${!bins[@]}"; do
	echo "statements sent to PostgreSQL ($([ "$b" -gt 0 ] && echo "before ($b)" || echo this build)):" \
	    "events $(statements "${bins[$b]}" events)," \
	    "costs $(statements "${bins[$b]}" costs)," \
	    "ls -o json $(statements "${bins[$b]}" ls -o json)"
done
