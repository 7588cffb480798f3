#!/usr/bin/env bash
# A managed job's controller killed between its rental and its record leaves a machine that
# only a look-up by label finds. While a provider cannot be asked (its instance list retired
# with 410, or down), the next controller can tell neither that the machine exists nor that
# it does not: it waits a round, rather than renting a second (recovery) or ending the job
# with the machine left billing (cancel). Once the provider answers, it finds the machine.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
start_serve lambda --api-key k
use_provider lambda k
g config set providers lambda >/dev/null || fail "config set providers"
machines() { sqlite3 "$(serve_home lambda)/state.db" "SELECT count(*) FROM sim_instances"; }
attempt_instance() { g jobs show m1 -o json | jq -r '.[0].instance'; }
warned() { g events -o json | jq "[.[] | select(.kind == \"$1\" and .label == \"m1\" and
	(.message | contains(\"could not all be asked\")))] | length"; }

export GPURENT_MANAGED_GATE="$TMP/gate"
touch "$TMP/gate.1"
"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt -- true >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill -KILL $ctl 2>/dev/null")
wait_until 300 '[ -e "$TMP/gate.1.held" ]' || fail "attempt 1 was not rented: $(cat "$TMP/ctl.err")"
{ kill -KILL "$ctl"; wait "$ctl"; } 2>/dev/null
rm -f "$TMP/gate.1"
check "one machine rented, not recorded" '[ "$(machines)" = 1 ] && [ "$(attempt_instance)" = null ]'

# Recovery: the provider's instance list is retired (410), its launches still work.
stop_serve
start_serve lambda --api-key k --gone /api/v1/instances
use_provider lambda k
run g watch --once
check "the watcher rented no second machine ($(machines))" '[ "$(machines)" = 1 ]'
check "the attempt is still unrecorded" '[ "$(attempt_instance)" = null ]'
check "it said it waits ($ERR)" '[ "$(warned managed-rent)" = 1 ]'

# Cancel: the provider is down, beside one that answers.
stop_serve
g config set providers sim,lambda >/dev/null || fail "config set providers"
expect_ok g kill m1
check "the job stays cancelling" '[ "$(g jobs m1 -o json | jq -r ".[0].state")" = cancelling ]'
check "it said it waits" '[ "$(warned managed-cancel)" = 1 ]'

# The provider answers again: the next round finds the machine and destroys it.
start_serve lambda --api-key k
use_provider lambda k
run g watch --once
expect_ok g jobs m1 -o json
check "then the job is cancelled ($ERR)" '[ "$(jq -r ".[0].state" <<<"$OUT")" = cancelled ]'
expect_ok g ls -o json
check "its machine, found by label, is destroyed: the one rented" \
	'[ "$(jq -r "[.[] | select(.label == \"gpurent-m1-a1\") | .state] | @tsv" <<<"$OUT")" = destroying ] &&
	[ "$(machines)" = 1 ]'
pass
