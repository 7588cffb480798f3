#!/usr/bin/env bash
# Several gpurent processes at once share one world without losing or duplicating anything,
# and Ctrl-C during --wait leaves the instance recorded.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

offers=$(g offers type=on-demand -o ids -n 8)
check "eight offers" '[ "$(wc -l <<<"$offers")" = 8 ]'
pids=()
i=0
for o in $offers; do
	g launch "$o" --label "par$i" >"$TMP/launch.$i" 2>"$TMP/launch.$i.err" &
	pids+=($!)
	i=$((i + 1))
done
# Meanwhile other processes read and move the clock.
g ls -o json >/dev/null &
pids+=($!)
g sim advance 30s >/dev/null &
pids+=($!)
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
check "every concurrent command succeeded" '[ $failed = 0 ]'
expect_ok g ls -o json
check "eight instances, eight distinct ids" '[ "$(jq "[.[].id] | unique | length" <<<"$OUT")" = 8 ]'
check "labels all present" '[ "$(jq -r "[.[].label] | sort | join(\",\")" <<<"$OUT")" = "par0,par1,par2,par3,par4,par5,par6,par7" ]'
expect_ok g sim advance 5m
expect_ok g ls --state running -o ids
check "all running" '[ "$(wc -l <<<"$OUT")" = 8 ]'

# Parallel destroys of the same ids: each destroyed once, no error for a repeat.
ids=$(g ls -o ids)
(g destroy --yes $ids >/dev/null 2>&1; echo $? >"$TMP/d1") &
(g destroy --yes $ids >/dev/null 2>&1; echo $? >"$TMP/d2") &
wait
check "both destroy runs succeeded" '[ "$(cat "$TMP/d1")" = 0 ] && [ "$(cat "$TMP/d2")" = 0 ]'
expect_ok g sim advance 1m
expect_ok g ls -o ids
check "all destroyed" '[ -z "$OUT" ]'
expect_ok g costs -o json
check "ledger closed: nothing burning" 'jq -e ".burn_hour == 0 and .spent > 0" <<<"$OUT" >/dev/null'

# Ctrl-C during launch --wait: the instance is reported, exists and is not destroyed.
unset GPURENT_SIM_TIME
o=$(g offers type=on-demand -o ids -n 1)
"$GPURENT" launch "$o" --label interrupted --wait --timeout 60 >"$TMP/wait.out" 2>"$TMP/wait.err" &
pid=$!
for i in $(seq 1 50); do
	[ -n "$(g ls --label interrupted -o ids 2>/dev/null)" ] && break
	sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
check "interrupted --wait exits 130 ($rc)" '[ $rc = 130 ]'
check "it says the instance was not destroyed" 'grep -q "not destroyed" "$TMP/wait.err"'
expect_ok g ls --label interrupted -o ids
check "instance still recorded" '[[ $OUT == sim:i-* ]]'
pass
