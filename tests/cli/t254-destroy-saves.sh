#!/usr/bin/env bash
# What destroying saves per hour, one figure for the CLI and the dashboard
# (instance_saving_hour): a running instance its price, a stopping or stopped one its disk's
# storage (it is heading for stopped, where the disk bills), not $0.000. On the simulator's
# frozen clock, so "stopping" lasts until `sim advance`.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || fail "script is not installed (util-linux)"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z

id=$(g launch "$(g offers type=on-demand -o ids -n 1)") || fail "launch"
expect_ok g sim advance 2m
expect_ok g -o json ls
price=$(jq -r '.[0].price_hour' <<<"$OUT")
storage=$(jq -r '.[0].storage_hour' <<<"$OUT")
check "the disk bills something while stopped ($storage)" 'awk "BEGIN { exit !($storage > 0.0005) }"'

# Asked on a terminal (script gives it one), answered no: nothing is destroyed.
saves() {
	echo n | script -qec "'$GPURENT' destroy $id" /dev/null | tr -d '\r' |
		sed -n 's/.*It saves \(.*\)\.$/\1/p'
}
check "running: it saves its price, $(printf '$%.3f' "$price")/hour" \
	'[ "$(saves)" = "$(printf "\$%.3f/hour" "$price")" ]'
expect_ok g stop --no-wait "$id"
check "it is stopping" '[ "$(g -o json ls | jq -r ".[0].state")" = stopping ]'
check "stopping: it saves its disk's storage, $(printf '$%.3f' "$storage")/hour, not \$0.000: $(saves)" \
	'[ "$(saves)" = "$(printf "\$%.3f/hour" "$storage")" ]'
expect_ok g sim advance 1m
check "stopped: the same: $(saves)" '[ "$(saves)" = "$(printf "\$%.3f/hour" "$storage")" ]'
check "nothing was destroyed" '[ "$(g -o json ls | jq -r ".[0].state")" = stopped ]'
pass
