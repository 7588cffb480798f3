#!/bin/bash
# Issue 30: GPURENT_SIM_DELAY shortens the simulated boots, stops and destroys on the real
# clock (the chaos run's worlds, whose bills must stay comparable with the ledger). At 5 % a
# boot of at most 90 s takes at most 4 s (a second at least); at the usual pace none of the
# offers boots within 10 s (20 s at least).
. "$(dirname "$0")/lib.sh"

expect_ok g config set providers sim
expect_ok g offers type=on-demand -n 1 -o ids
offer=$OUT
export GPURENT_SIM_DELAY=5
expect_ok g launch "$offer" --wait --timeout 10 -o json
check "running within 10 s" '[ "$(jq -r .state <<<"$OUT")" = running ]'
id=$(jq -r .id <<<"$OUT")
expect_ok g stop "$id" --timeout 10
expect_ok g destroy --yes --wait "$id" --timeout 10
GPURENT_SIM_DELAY=0 run g ls
check "0 is refused, with the range (got $RC)" '[ "$RC" = 2 ] && [[ "$ERR" == *"GPURENT_SIM_DELAY"*"1 to 100"* ]]'
pass
