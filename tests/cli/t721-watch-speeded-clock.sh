#!/bin/bash
# A watcher over a simulator that runs faster than the wall (GPURENT_SIM_SPEED) still
# stops an idle instance: a sample stays fresh for three intervals as they pass on the
# instance's clock (an interval slept on the wall spans SPEED times as many simulated
# seconds), so the passes of a steady watcher are no gap in which idle time restarts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"
unset GPURENT_SIM_TIME
export GPURENT_SIM_SPEED=30

expect_ok g config set idle.after 2m
# The market moves 30 times as fast as the wall: launch_fresh searches again if the offer
# went before the launch.
idle=$(launch_fresh gpus=1 type=on-demand -- --env SIM_WORKLOAD=idle --label idle) ||
	fail "launch"
# It boots in 50 to 80 simulated seconds: about three real ones.
wait_until 600 '[ "$(state_of "$idle")" = running ]' || fail "$idle did not boot"
"$GPURENT" watch --interval 2 >"$TMP/w.out" 2>"$TMP/w.err" &
w=$!
CLEANUP_HOOKS+=("kill $w 2>/dev/null; wait $w 2>/dev/null")
# Two idle minutes are four real seconds; each pass is a minute of the simulator's clock.
wait_until 900 '[ "$(state_of "$idle")" = stopped ]' ||
	fail "the watcher did not stop the idle instance: $(cat "$TMP/w.out" "$TMP/w.err")"
kill "$w"
wait "$w"
check "stopped for idleness: $(cat "$TMP/w.out")" \
	'[[ $(cat "$TMP/w.out") == *"stop-ordered $idle"* ]]'
pass
