#!/bin/bash
# Issue 30, found by the chaos run (seed 6 of its full mix, 100 operations, 4 clients; request
# r42 on PPIO): a stopped PPIO instance billed its disk in the simulated world (at the
# market's storage price) while gpurent, after PPIO, counts nothing for it: PPIO keeps no disk
# across a stop (providers/ppio.md §6). The chaos run's ledger invariant failed on it ("the
# provider bills it now, the ledger counts nothing of it"). sim serve's PPIO now bills a
# stopped instance nothing, as its client counts.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve ppio --api-key kp
use_provider ppio kp
expect_ok g config set providers ppio
# The first offer with a machine free (PPIO's stock is per region).
expect_ok g offers type=on-demand -n 12 -o ids
id=
for off in $OUT; do
	run g launch "$off" --image x -o ids
	[ "$RC" = 0 ] && { id=$OUT; break; }
done
check "rented one ($ERR)" '[ -n "$id" ]'
expect_ok serve_g ppio sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\"" >/dev/null'
expect_ok g stop "$id" --timeout 30
expect_ok serve_g ppio sim advance 1h
world=$(serve_home ppio)/state.db
run sqlite3 "$world" "SELECT state FROM sim_instances"
check "the provider has it stopped ($OUT)" '[ "$OUT" = 4 ]'
run sqlite3 "$world" "SELECT count(*) FROM ledger WHERE end_ts = 0"
check "and bills nothing of it now ($OUT open segments)" '[ "$OUT" = 0 ]'
expect_ok g costs -o json
check "the ledger counts nothing of it either" \
	'[ "$(jq -r ".burn_hour * 1000000 | round" <<<"$OUT")" = 0 ]'
pass
