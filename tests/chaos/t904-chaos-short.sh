#!/bin/bash
# Issue 30: the short seeded chaos run. Two fixed seeds, side by side, each a history of
# operations from six clients and a conductor, with faults, kill -9 and a watcher scaling a
# group, against sim serve's four dialects and the built-in simulator; then the invariants,
# against the simulated providers' own databases (chaos.py says which). The history of each
# seed is its plan: drawn again from the seed alone, it is the same, line for line.
. "$(dirname "$0")/../cli/lib.sh"

driver=$(dirname "$0")/chaos.py
OPS=${CHAOS_OPS:-60}
pids=()
for seed in 1 2; do
	python3 "$driver" --gpurent "$GPURENT" --seed $seed --ops "$OPS" --dir "$TMP/run$seed" \
	    --log "$TMP/history$seed" >"$TMP/out$seed" 2>&1 &
	pids+=($!)
done
CLEANUP_HOOKS+=("kill ${pids[*]} 2>/dev/null; wait ${pids[*]} 2>/dev/null")
for i in 0 1; do
	wait "${pids[$i]}"
	rc=$?
	cat "$TMP/out$((i + 1))" >&2
	ERR=$(cat "$TMP/out$((i + 1))")
	check "seed $((i + 1)): every invariant held" '[ "$rc" = 0 ]'
done
python3 "$driver" --gpurent "$GPURENT" --seed 1 --ops "$OPS" --plan-only --log "$TMP/plan1"
check "seed 1's history is the one its seed draws" 'cmp "$TMP/history1" "$TMP/plan1"'
check "seed 2's is another" '! cmp -s "$TMP/history1" "$TMP/history2"'
pass
