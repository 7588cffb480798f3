#!/usr/bin/env bash
# Billing to the second on a clock the test sets: exact costs, projections, budgets,
# storage while stopped and interruptible instances being outbid.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T13:33:20Z

offer=$(g offers type=on-demand gpu=h100 -o json -n 1)
oid=$(jq -r '.[0].id' <<<"$offer")
price=$(jq -r '.[0].price_hour' <<<"$offer")
id=$(g launch "$oid" --label bill)
expect_ok g show "$id" -o json
check "provisioning at first" '[ "$(jq -r .state <<<"$OUT")" = provisioning ]'
expect_ok g costs -o json
check "nothing billed while provisioning" 'jq -e ".spent == 0 and .burn_hour == 0" <<<"$OUT" >/dev/null'

expect_ok g sim advance 2m
expect_ok g show "$id" -o json
since=$(jq -r .state_since <<<"$OUT")
check "running after boot" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g sim advance 1h
expect_ok g costs -o json
# Billed from the moment it started running: exact micro-dollars.
start=$(date -u -d "$since" +%s)
now=$((1790000000 + 120 + 3600))
want=$(jq -n "($price * 1000000 * ($now - $start) / 3600 + 0.5 | floor) / 1000000")
check "spent = price x seconds running ($want)" 'jq -e ".spent == $want and .burn_hour == $price" <<<"$OUT" >/dev/null'
check "projection adds the burn to midnight" 'jq -e ".projected_day > .spent_today" <<<"$OUT" >/dev/null'
check "the provider's own figures agree with the ledger" \
	'jq -e ".providers[0].provider == \"sim\" and .providers[0].reported_burn_hour == .providers[0].ledger_burn_hour and .providers[0].balance == (500 - .spent)" <<<"$OUT" >/dev/null'

expect_ok g stop --no-wait "$id"
expect_ok g sim advance 1m
expect_ok g show "$id" -o json
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g costs -o json
check "storage bills while stopped" 'jq -e ".burn_hour > 0 and .burn_hour < 0.1" <<<"$OUT" >/dev/null'

# A budget refuses a launch that would exceed it, unless forced.
expect_ok g config set budget.day 1
expect_rc 9 g launch "$oid"
check "budget refusal explains" '[[ $ERR == *budget.day* ]]'
expect_ok g config unset budget.day

# An interruptible instance bid at the floor is outbid when the market rises.
spot=$(g offers type=interruptible -o json | jq -r '.[0].id')
sid=$(g launch "$spot" --label spot)
outbid=0
for i in $(seq 1 48); do
	g sim advance 1h >/dev/null
	st=$(g show "$sid" -o json | jq -r .state)
	if [ "$st" = stopped ]; then outbid=1; break; fi
done
check "outbid within two days" '[ $outbid = 1 ]'
expect_ok g show "$sid" -o json
check "outbid is explained" '[[ "$(jq -r .status <<<"$OUT")" == outbid* ]]'
expect_ok g sim advance 1d
expect_ok g costs --by day -o json
check "costs by day: two days, adding up to the total" \
	'jq -e "(.groups | length >= 2) and (([.groups[].spent] | add) - .spent | fabs < 0.00001)" <<<"$OUT" >/dev/null'
pass
