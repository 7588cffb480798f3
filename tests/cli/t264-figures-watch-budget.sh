#!/bin/bash
# Issue 33: the watcher's budget figures, worked out by hand: budget.day counts today's spend
# only and budget.month this month's, each against its room. The ledger, on the simulator's
# clock at 2026-10-02T06:00:00Z, as the ledger writes it:
#   sim:y-1  $5.00/h yesterday 10:00-20:00          = 50.00, this month, not today
#   sim:t-1  $2.00/h since midnight, still running  = 12.00 today
#   today 12.00; this month 62.00
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790920800	# 2026-10-02T06:00:00Z
NOW=1790920800

expect_ok g costs			# makes the state database
sqlite3 "$DB" "INSERT INTO ledger(instance_id, provider, label, kind, rate_hour,
	start_ts, end_ts, currency) VALUES
	('sim:y-1', 'sim', 'old', 0, 5000000, $((NOW - 20 * 3600)), $((NOW - 10 * 3600)), 'USD'),
	('sim:t-1', 'sim', 'new', 0, 2000000, $((NOW - 6 * 3600)), 0, 'USD')" || fail "sqlite3 insert"
expect_ok g costs -o json
check "the fixture: 12.00 today, 62.00 this month" \
	'jq -e ".spent_today == 12 and .spent_month == 62" <<<"$OUT" >/dev/null'

# budget.day 14: 12 / 14 = 86 % >= budget.warn's 80 %; budget.month 70: 62 / 70 = 89 %.
expect_ok g config set budget.day 14
expect_ok g config set budget.month 70
expect_ok g watch --once --interval 1m
# figure: watch-budget-spent
check "budget.day: today's 12.00 of 14.00 ($OUT)" \
	'[[ $OUT == *"warn budget-warn: \$12.00 of \$14.00 spent (80% or more of budget.day)"* ]]'
check "budget.month: this month's 62.00 of 70.00" \
	'[[ $OUT == *"warn budget-warn: \$62.00 of \$70.00 spent (80% or more of budget.month)"* ]]'
# At exactly its room a budget is used up: budget.day 12.00 against today's 12.00.
expect_ok g config set budget.day 12
expect_ok g config unset budget.month
expect_ok g watch --once --interval 1m
check "budget.day 12.00 is used up by today's 12.00 ($OUT)" \
	'[[ $OUT == *"warn budget-exceeded: \$12.00 of \$12.00 spent: budget.day is used up"* ]]'
pass
