#!/usr/bin/env bash
# Billing to the second on a clock the test sets: exact costs, projections, budgets,
# storage while stopped and interruptible instances being outbid.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z

# The figures below are worked out by hand from the offer's price, not taken from the simulator
# (a check of its spend against a figure it derives from its own ledger could not fail). Seed
# 42: the first on-demand H100 offer is sim:o-000075 at $1.89/h, $0.013014/h of storage.
# Launched at 14:13:20, it boots in 60 s; 2 min + 1 h later (15:15:20) it has run 3660 s:
#   spent          = 1.89 * 3660 / 3600                    = 1.9215
#   balance        = 500 - 1.9215                          = 498.0785
#   projected_day  = 1.9215 + 1.89 * 31480 / 3600 (to 24:00)          = 18.4485
#   projected_month= 1.9215 + 1.89 * 809080 / 3600 (to 1 October 00:00) = 426.6885
offer=$(g offers type=on-demand gpu=h100 -o json -n 1)
oid=$(jq -r '.[0].id' <<<"$offer")
check "the fixture's offer" '[ "$oid" = sim:o-000075 ] && jq -e ".[0].price_hour == 1.89" <<<"$offer" >/dev/null'
id=$(g launch "$oid" --label bill)
expect_ok g show "$id" -o json
check "provisioning at first" '[ "$(jq -r .state <<<"$OUT")" = provisioning ]'
check "created at the fixture's time" '[ "$(jq -r .created_at <<<"$OUT")" = 2026-09-21T14:13:20Z ]'
expect_ok g costs -o json
check "nothing billed while provisioning" 'jq -e ".spent == 0 and .burn_hour == 0" <<<"$OUT" >/dev/null'

expect_ok g sim advance 2m
expect_ok g show "$id" -o json
check "running after a 60 s boot" \
	'jq -e ".state == \"running\" and .state_since == \"2026-09-21T14:14:20Z\"" <<<"$OUT" >/dev/null'
expect_ok g sim advance 1h
expect_ok g costs -o json
check "spent: 3660 s at \$1.89/h is \$1.9215" 'jq -e ".spent == 1.9215 and .spent_today == 1.9215 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'
check "projected to midnight: \$18.4485" 'jq -e ".projected_day == 18.4485" <<<"$OUT" >/dev/null'
check "projected to the month's end: \$426.6885" 'jq -e ".projected_month == 426.6885" <<<"$OUT" >/dev/null'
check "the provider reports \$1.89/h and a balance of \$498.0785" \
	'jq -e ".providers[0].provider == \"sim\" and .providers[0].reported_burn_hour == 1.89 and .providers[0].ledger_burn_hour == 1.89 and .providers[0].balance == 498.0785" <<<"$OUT" >/dev/null'

expect_ok g stop --no-wait "$id"
expect_ok g sim advance 1m
expect_ok g show "$id" -o json
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g costs -o json
check "storage bills while stopped: \$0.013014/h" 'jq -e ".burn_hour == 0.013014" <<<"$OUT" >/dev/null'
before=$(jq .spent <<<"$OUT")
expect_ok g sim advance 1h
expect_ok g costs -o json
check "an hour stopped costs one hour of storage" \
	'jq -e "(.spent * 1000000 | round) - ($before * 1000000 | round) == 13014" <<<"$OUT" >/dev/null'

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
	'jq -e "(.rows | length >= 2) and (([.rows[].spent] | add) - .spent | fabs < 0.00001)" <<<"$OUT" >/dev/null'
pass
