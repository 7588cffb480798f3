#!/bin/bash
# Issue 30: the chaos run's full mix, short (t904 runs the plain mix; bench/chaos.sh the full
# one, long): seed 8, 30 operations from four clients, among them managed jobs on the
# built-in simulator over a real sshd (a controller killed, the watcher driving its job on),
# shells fed a script (two killed), and run, logs and cp over that sshd while it is stopped
# and started again; then every invariant, the managed jobs' and remote-io's with them. The
# history is the seed's.
. "$(dirname "$0")/../cli/lib.sh"

driver=$(dirname "$0")/chaos.py
python3 "$driver" --gpurent "$GPURENT" --seed 8 --ops 30 --clients 4 --full-mix \
	--dir "$TMP/run" --log "$TMP/history" >"$TMP/out" 2>&1 &
pid=$!
CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
wait "$pid"
rc=$?
cat "$TMP/out" >&2
ERR=$(cat "$TMP/out")
check "every invariant held" '[ "$rc" = 0 ]'
check "the managed jobs' among them" '[[ "$ERR" == *'"'"'"managed-twice": '"'"'[1-9]* ]]'
python3 "$driver" --gpurent "$GPURENT" --seed 8 --ops 30 --clients 4 --full-mix --plan-only \
	--log "$TMP/plan"
check "the history is the one its seed draws" 'cmp "$TMP/history" "$TMP/plan"'
check "with managed jobs, shells, remote commands and sshd stops in it" \
	'grep -q " managed " "$TMP/history" && grep -q " shell " "$TMP/history" && grep -q "remote .*fault=sshd-stop" "$TMP/history"'
pass
