#!/usr/bin/env bash
# stop waits until stopped (--no-wait returns at once); start of a stopping instance and
# stop of a starting or provisioning one are recorded at once as what the user intends, and
# the machine follows once its step ends (issue 28); destroy of a starting one works; a
# wait that runs out is a timeout (11), never a usage error (2).
# The simulated clock stands still and moves only by `sim advance`, so every state seen
# here is certain: a command that waits can only finish after an advance made meanwhile.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

state() {
	g show "$1" -o json | jq -r .state
}

intent() {
	g show "$1" -o json | jq -r .intended_state
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

# --no-wait returns while it is still stopping; a start then is accepted at once, and the
# instance starts once it has stopped (a stop takes at most 15 s, a start at least 20 s).
expect_ok g stop --no-wait "$id"
check "still stopping after --no-wait" '[ "$(state "$id")" = stopping ]'
expect_ok g start "$id" --timeout 30
check "start of a stopping instance is accepted at once, meant to run" \
	'[ "$(state "$id")" = stopping ] && [ "$(intent "$id")" = running ]'
expect_ok g sim advance 16s
check "it starts once it has stopped" '[ "$(state "$id")" = starting ]'

# stop of an instance that is still starting is accepted at once: it ends stopped once the
# start step is over, without running.
advance_on "$id" starting 5m
expect_ok g stop "$id" --timeout 30
check "stop of a starting instance ends stopped" '[ "$(state "$id")" = stopped ]'

# start --wait of an instance still stopping: waits for it to stop, starts it, waits for it
# to run.
expect_ok g start "$id"
expect_ok g sim advance 5m
expect_ok g stop --no-wait "$id"
advance_on "$id" stopping 16s starting 5m
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

# Nothing settles without an advance: a stop accepted while it provisions, or while it runs,
# that has not finished is a timeout (11, still under way), never a conflict.
id=$(launch_fresh type=on-demand --)
expect_rc 11 g stop "$id" --timeout 1
check "accepted and still provisioning: a timeout" \
	'[[ $ERR == *"still provisioning"* ]] && [ "$(intent "$id")" = stopped ]'
expect_ok g start "$id"
check "a start takes the stop back while it provisions" \
	'[ "$(state "$id")" = provisioning ] && [ "$(intent "$id")" = running ]'
expect_ok g sim advance 5m
check "and it runs" '[ "$(state "$id")" = running ]'
expect_rc 11 g stop "$id" --timeout 1
check "accepted and still stopping: a timeout" '[[ $ERR == *"still stopping"* ]] && [ "$(state "$id")" = stopping ]'
pass
