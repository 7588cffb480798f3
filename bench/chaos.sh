#!/bin/bash
# chaos.sh - the long seeded chaos run (issue 30): tests/chaos/chaos.py with a new seed and
# 10,000 operations; prints its report (operations, commands and their exit statuses, faults
# injected by kind, kills, each invariant's checks held and failed, the first failure) and
# checks that the history it ran is the one its seed draws.
#
# usage: bench/chaos.sh [path/to/gpurent]   (default: build/gpurent; SEED=N, default the
#        time; OPS=N, default 10000; CLIENTS=N, default 8; DEADLINE=S: after S seconds no
#        more operations, those run checked; KEEP=1 keeps its directory). The full mix:
#        managed jobs, and run, logs and cp, over a real sshd that is stopped at times, the
#        shell as a client, and instance guards whose agents stop their vast instances at a
#        deadline, among the rest; and, as root, jobs submitted and cancelled on a real Slurm
#        cluster (--slurm; SLURM=0 leaves it out, as it must when not root), and the
#        dashboard in tmux driven by keys (--dashboard; DASHBOARD=0 leaves it out).
set -eu
G=$(realpath "${1:-build/gpurent}")
SEED=${SEED:-$(date +%s)}
OPS=${OPS:-10000}
CLIENTS=${CLIENTS:-8}
here=$(dirname "$(realpath "$0")")
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-chaos-bench.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
mix=(--full-mix)
[ "${SLURM:-1}" = 0 ] || mix+=(--slurm)
[ "${DASHBOARD:-1}" = 0 ] || mix+=(--dashboard)
rc=0
python3 "$here/../tests/chaos/chaos.py" --gpurent "$G" --seed "$SEED" --ops "$OPS" \
	--clients "$CLIENTS" --dir "$TMP/run" --log "$TMP/history" --report "$TMP/report" \
	--progress 500 --deadline "${DEADLINE:-0}" "${mix[@]}" || rc=$?
python3 "$here/../tests/chaos/chaos.py" --gpurent "$G" --seed "$SEED" --ops "$OPS" \
	--clients "$CLIENTS" --plan-only "${mix[@]}" --log "$TMP/plan"
cat "$TMP/report"
# Every failure, not only the first (the run's directory goes unless KEEP=1).
if [ -s "$TMP/run/failures.log" ]; then
	echo
	echo "failures ($(wc -l <"$TMP/run/failures.log")):"
	cat "$TMP/run/failures.log"
fi
echo
# Each line of the history run is a line of the seed's (all of them without a deadline).
if [ -z "$(LC_ALL=C comm -23 "$TMP/history" "$TMP/plan")" ] &&
    { [ "${DEADLINE:-0}" != 0 ] || cmp -s "$TMP/history" "$TMP/plan"; }; then
	echo "history: the seed's own, $(wc -l <"$TMP/history") of its $(wc -l <"$TMP/plan") operations"
else
	echo "history: NOT the seed's"
	rc=1
fi
exit "$rc"
