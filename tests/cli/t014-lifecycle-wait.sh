#!/usr/bin/env bash
# stop waits until stopped (--no-wait returns at once); start of a stopping instance and
# stop of a starting one wait for it to settle, then act; destroy of a starting one works;
# what waiting cannot resolve is a state conflict, status 13, never a usage error (2).
# The simulated clock stands still and moves only by `sim advance`, so every state seen
# here is certain: a command that waits can only finish after an advance made meanwhile.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

state() {
	g show "$1" -o json | jq -r .state
}

# advance_on ID STATE DURATION [STATE DURATION]...: in the background, for each pair, once
# ID is in STATE, one `sim advance DURATION`. The command the test runs meanwhile has two
# seconds' head start to be waiting when the first advance comes (what these checks are
# about); on a loaded machine it may start later, and the advances still come in the order
# of the states, so the checks hold either way. Each state is awaited for at most 30 s.
advance_on() {
	local id=$1 want
	shift
	(
		sleep 2
		while [ $# -ge 2 ]; do
			want=$1
			wait_until 300 '[ "$(state "$id")" = "$want" ]' || exit 1
			"$GPURENT" sim advance "$2" >/dev/null
			shift 2
		done
	) &
	CLEANUP_HOOKS+=("kill $! 2>/dev/null")
}

id=$(launch_fresh type=on-demand --)
expect_ok g sim advance 5m
check "running" '[ "$(state "$id")" = running ]'

# stop returns once stopped, so the next command can start it (the README's line).
advance_on "$id" stopping 1m
expect_ok g stop "$id" --timeout 30
check "stop printed the id" '[ "$OUT" = "$id" ]'
check "stopped when stop returned" '[ "$(state "$id")" = stopped ]'
advance_on "$id" starting 5m
expect_ok g start "$id" --wait --timeout 30
check "start --wait ends running" '[ "$(state "$id")" = running ]'

# --no-wait returns while it is still stopping; start then waits for it and starts it.
expect_ok g stop --no-wait "$id"
check "still stopping after --no-wait" '[ "$(state "$id")" = stopping ]'
advance_on "$id" stopping 1m
expect_ok g start "$id" --timeout 30
check "start of a stopping instance waited, then started it" '[ "$(state "$id")" = starting ]'

# stop of an instance that is still starting waits until it runs, then stops it.
advance_on "$id" starting 5m stopping 1m
expect_ok g stop "$id" --timeout 30
check "stop of a starting instance ends stopped" '[ "$(state "$id")" = stopped ]'

# start --wait of an instance still stopping: waits for it to stop, starts it, waits for it
# to run.
expect_ok g start "$id"
expect_ok g sim advance 5m
expect_ok g stop --no-wait "$id"
advance_on "$id" stopping 1m starting 5m
expect_ok g start --wait "$id" --timeout 30
check "start --wait of a stopping instance ends running" '[ "$(state "$id")" = running ]'
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 1m

# destroy of a starting instance is accepted at once.
expect_ok g start "$id"
check "starting" '[ "$(state "$id")" = starting ]'
expect_ok g destroy --yes "$id"
check "destroy of a starting instance accepted" '[ "$OUT" = "$id" ]'

# Several ids are all asked first and then waited for together: one advance stops both
# (waiting for the first before asking for the second would leave that one stopping).
a=$(g launch "$(g offers type=on-demand -o ids -n 2 | tail -1)")
b=$(g launch "$(g offers type=on-demand -o ids -n 3 | tail -1)")
expect_ok g sim advance 5m
advance_on "$b" stopping 1m
expect_rc 10 g stop "$a" sim:i-999999 "$b" --timeout 15
check "both stopped and printed, the unknown id named" \
	'[ "$OUT" = "$a"$'"'"'\n'"'"'"$b" ] && [[ $ERR == *sim:i-999999* ]] && [ "$(state "$a")" = stopped ] && [ "$(state "$b")" = stopped ]'

# Nothing settles without an advance: the conflict is reported as such (13, nothing done),
# while a stop that was accepted but has not finished is a timeout (11, still under way).
id=$(launch_fresh type=on-demand --)
expect_rc 13 g stop "$id" --timeout 1
check "the conflict says why" '[[ $ERR == *"$id"*provisioning*"only a running instance can stop"* ]]'
expect_rc 13 g stop --no-wait "$id" --timeout 1
expect_ok g sim advance 5m
expect_rc 11 g stop "$id" --timeout 1
check "accepted and still stopping: a timeout" '[[ $ERR == *"still stopping"* ]] && [ "$(state "$id")" = stopping ]'
expect_rc 13 g start "$id" --timeout 1
check "start of a stopping instance that cannot settle: 13" '[[ $ERR == *stopping* ]]'
pass
