#!/bin/bash
# Issue 30: the Slurm cluster in the chaos run (--slurm): a real two-node cluster
# (tests/slurm/cluster, as root) behind gpurent's slurm provider, beside the plain mix's
# worlds; seed 13, 30 operations from four clients, of which seven submit a job labelled
# with its request's slot (four killed -9 a drawn while in) and two cancel one (one killed).
# Then every invariant, and Slurm's own records (squeue of every state): no slot submitted
# as two jobs, every job of a slot known to gpurent, each cancel that exited 0 done. The
# history is the seed's.
. "$(dirname "$0")/../cli/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "not ok $TEST_NAME: the Slurm cluster needs root (slurmd starts jobs as their users)" >&2
	exit 1
fi
driver=$(dirname "$0")/chaos.py
python3 "$driver" --gpurent "$GPURENT" --seed 13 --ops 30 --clients 4 --slurm \
	--dir "$TMP/run" --log "$TMP/history" >"$TMP/out" 2>&1 &
pid=$!
# The driver stops its cluster; should it be killed first, the cluster by its pids.
CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null; '$SRCDIR/tests/slurm/cluster' stop '$TMP/run/slurm' 2>/dev/null")
wait "$pid"
rc=$?
cat "$TMP/out" >&2
ERR=$(cat "$TMP/out")
check "every invariant held" '[ "$rc" = 0 ]'
check "Slurm's among them" '[[ "$ERR" == *'"'"'"slurm-cancel": '"'"'[1-9]* ]] && [[ "$ERR" == *'"'"'"slurm-twice": '"'"'[1-9]* ]] && [[ "$ERR" == *'"'"'"slurm-orphan": '"'"'[1-9]* ]]'
python3 "$driver" --gpurent "$GPURENT" --seed 13 --ops 30 --clients 4 --slurm --plan-only \
	--log "$TMP/plan"
check "the history is the one its seed draws" 'cmp "$TMP/history" "$TMP/plan"'
check "with submissions killed and cancels in it" \
	'grep -q "slurm-launch .*fault=kill" "$TMP/history" && grep -q "slurm-cancel .*fault=none" "$TMP/history"'
pass
