#!/usr/bin/env bash
# The simulator keeps what the user intends apart from where the machine is (issue 28, as
# vast.ai's intended_status): a stop while it still provisions is accepted at once, `ls`
# and `show` say provisioning with intended_state stopped, its reservation is let go at
# once, and once loaded it stops without ever running: it bills its disk only, from then.
# On the simulator's frozen clock, so every state holds until `sim advance`.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

id=$(launch_fresh type=on-demand --)
expect_ok g show "$id" -o json
price=$(jq -r .price_hour <<<"$OUT")
storage=$(jq -r .storage_hour <<<"$OUT")
check "provisioning, meant to run" \
	'jq -e ".state == \"provisioning\" and .intended_state == \"running\"" <<<"$OUT" >/dev/null'
expect_ok g costs -o json
check "its price is reserved while it provisions ($price)" \
	'[ "$(jq -r .provisioning_hour <<<"$OUT")" = "$price" ]'

expect_ok g stop --no-wait "$id"
check "a stop while it provisions is accepted" '[ "$OUT" = "$id" ]'
expect_ok g show "$id" -o json
check "show: still provisioning, intended stopped" \
	'jq -e ".state == \"provisioning\" and .intended_state == \"stopped\"" <<<"$OUT" >/dev/null'
expect_ok g ls --fields id,state,intended_state
check "ls: the INTENT column says it" \
	'grep -Eq "^$id +provisioning +stopped *$" <<<"$OUT"'
expect_ok g costs -o json
check "the reservation is let go: it will not run" \
	'[ "$(jq -r .provisioning_hour <<<"$OUT")" = 0 ]'

# A start takes it back, and a stop again lets it go.
expect_ok g start "$id"
expect_ok g costs -o json
check "started again: reserved again" '[ "$(jq -r .provisioning_hour <<<"$OUT")" = "$price" ]'
expect_ok g stop --no-wait "$id"

expect_ok g sim advance 5m
expect_ok g show "$id" -o json
check "once loaded, it stopped without running" \
	'jq -e ".state == \"stopped\" and .intended_state == \"stopped\"" <<<"$OUT" >/dev/null'
# Its disk bills from when it stopped: storage_hour x seconds since / 3600, in micro-dollars
# (rounded half up, as money_accrue rounds), and no compute at all.
since=$(date -ud "$(jq -r .state_since <<<"$OUT")" +%s)
secs=$((1790000000 + 300 - since))
want=$(awk -v s="$storage" -v t="$secs" 'BEGIN { printf "%.6f", int(s * 1e6 * t / 3600 + 0.5) / 1e6 }')
got=$(jq -r '.cost * 1e6 | round / 1e6' <<<"$OUT")
check "its cost is its disk's $storage/h for ${secs}s: \$$want (got \$$got)" \
	'awk -v a="$got" -v b="$want" "BEGIN { exit !(a == b) }"'
check "it stopped once loaded, within the 20 to 90 s a load takes" \
	'[ "$secs" -ge 210 ] && [ "$secs" -le 280 ]'

# What destroying saves, asked on a terminal (script gives it one) and answered no: the
# disk's storage of one told to stop while it provisions, not its price (t254's figure).
command -v script >/dev/null || fail "script is not installed (util-linux)"
id2=$(launch_fresh type=on-demand --)
storage2=$(g show "$id2" -o json | jq -r .storage_hour)
saves() {
	echo n | script -qec "'$GPURENT' destroy $id2" /dev/null | tr -d '\r' |
		sed -n 's/.*It saves \(.*\)\.$/\1/p'
}
expect_ok g stop --no-wait "$id2"
check "told to stop while provisioning, it saves its storage, $(printf '$%.3f' "$storage2")/hour: $(saves)" \
	'[ "$(saves)" = "$(printf "\$%.3f/hour" "$storage2")" ]'
pass
