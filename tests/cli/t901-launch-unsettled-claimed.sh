#!/bin/bash
# Issue 30, found by the chaos run (seed 1, request r46 on lambda): a launch whose outcome
# gpurent cannot know (a reply it cannot read, and the instances it could not list first), or
# whose command is killed while the create is at the provider, leaves an instance that bills.
# The launch journal kept no name, so nothing gpurent did afterwards linked it to the launch:
# reconcile called it foreign, an orphan. Now the journal keeps the launch's name, and a
# listing that shows it settles the launch with its instance.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
# The market holds still. On the wall clock, the offer searched first could be off the market
# by the launch that is killed, which then ended at once ("not on the market") without its
# create.
export GPURENT_SIM_TIME=1790000000

start_serve lambda --api-key k
clean=$SERVE_URL
use_provider lambda k
expect_ok g config set providers lambda
offer=$(g offers type=on-demand -n 1 -o ids) || fail "offers"

# Half the replies malformed, from fault seed 34: the offer's type and the ssh keys read, then
# the list before the create and the create's answer unreadable.
start_serve lambda --api-key k --fail-malformed 50 --fault-seed 34
export GPURENT_LAMBDA_URL=$SERVE_URL
expect_rc 5 g launch "$offer" --label r46 -o ids
check "the outcome is said unknown, with the name to look for" \
	'[[ "$ERR" == *"launch outcome unknown"*"(name '"'"'r46'"'"')"* ]]'

# A launch killed while its create is held at the provider (by a gate the test opens), which
# then makes it. Only the create is held: the requests before it are answered at once, so
# that under load the wait is for the create itself.
gate=$TMP/gate
GPURENT_SERVE_HOLD=$gate start_serve lambda --api-key k --fail-match instance-operations/launch \
	--log-requests "$TMP/requests"
export GPURENT_LAMBDA_URL=$SERVE_URL
# --debug: its requests traced into its errors, for a failure to show where it stopped.
g --debug launch "$offer" --label killed -o ids >"$TMP/killed.out" 2>"$TMP/killed.err" &
pid=$!
CLEANUP_HOOKS+=("kill -9 $pid 2>/dev/null")
# Until the create came, or the launch ended without it (then why is in its errors).
created() { grep -q "instance-operations/launch" "$TMP/requests" 2>/dev/null; }
wait_until 1200 'created || ! kill -0 $pid 2>/dev/null'
created || fail "the create never came: $(tail -n 60 "$TMP/killed.err")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
touch "$gate"
wait_until 100 '[ "$(sqlite3 "$(serve_home lambda)/state.db" "SELECT count(*) FROM sim_instances")" = 2 ]' || fail "the held create was not made"

export GPURENT_LAMBDA_URL=$clean
expect_ok g ls -o json
check "both instances listed" '[ "$(jq length <<<"$OUT")" = 2 ]'
run sqlite3 "$DB" "SELECT instance_id FROM launch_journal WHERE settled = 1 ORDER BY id"
check "each launch settled with its instance: $OUT" '[ "$(tr '"'"'\n'"'"' " " <<<"$OUT")" = "lambda:00000000000000000000000000000001 lambda:00000000000000000000000000000002 " ]'
expect_ok g reconcile -o json
check "reconcile finds nothing foreign" '! grep -q foreign <<<"$OUT"'
pass
