#!/bin/bash
# Launch by requirement and elastic groups over providers in two currencies (issues 14 and
# 18): `providers = sim,ppio` sells H100s in dollars and in yuan. Neither the dry run nor
# the watcher's group pass may crash on it (both once read the offers' currencies after
# freeing the list).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1780000000
# The server keeps a simulated world of its own: the sim provider must not list its
# instances a second time.
mkdir -p "$TMP/serve-home"
GPURENT_HOME=$TMP/serve-home start_serve ppio --api-key k
use_provider ppio k
expect_ok g config set providers sim,ppio
expect_ok g config set launch.image pytorch/pytorch
check "H100s in both currencies" \
    '[ "$(g -o json offers gpu=H100 gpus=1 | jq -r "[.[].currency] | unique | join(\",\")")" = "CNY,USD" ]'

# The dry run over both currencies answers (it once crashed, rc 139).
run g launch --gpu H100 --count 1 --dry-run
check "launch --dry-run did not crash (rc $RC): $ERR" '[ "$RC" -ne 139 ] && [ "$RC" -lt 128 ]'

# A group of a GPU sold in both currencies: the watcher's pass answers (it once crashed).
expect_ok g group create both --gpu H100 --min 1 --max 2 --target-util 50
run g watch --once --interval 1h
check "watch --once did not crash (rc $RC): $ERR" '[ "$RC" -ne 139 ] && [ "$RC" -lt 128 ]'
pass
