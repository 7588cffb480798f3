#!/bin/bash
# A group never goes beyond the budget: its launches go through the same budget check as
# `gpurent launch`, so a scale-out that budget.month cannot pay for is refused, said as an
# event with the numbers, and rents nothing. And `watch --dry-run` says what a group would
# do, and rents, destroys and records nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1767261600	# 2026-01-01T10:00:00Z: the tide at 71 %
expect_ok g group create inf --gpu A100 --min 1 --max 3 --target-util 50 --cooldown 1h \
	--window 1h --env SIM_WORKLOAD=tidal

# Dry run: the first member would be launched; nothing is.
expect_ok g watch --once --dry-run --interval 1h
check "dry run says the decision: $OUT" \
	'[[ $OUT == *"would: action group-out: group inf scales out by 1 (below-min"* ]] &&
	[[ $OUT == *"would: action group-launch: group inf: would launch an on-demand A100 member (dry run: nothing rented)"* ]]'
check "nothing rented" '[ "$(g -o json ls | jq length)" = 0 ]'
check "nothing journaled" '[ "$(g -o json events | jq length)" = 0 ]'
check "no decision recorded" '[ "$(g -o json group show inf | jq .[0].last_scale_at)" = null ]'

# A month's budget for about one member (its price for 1.5 x the month's hours).
price=$(g -o json offers gpu=A100 gpus=1 type=on-demand | jq '[.[].price_hour] | min')
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.2f\", $price * 744 * 1.5 }")"
expect_ok g watch --once --interval 1h
check "the first member fits the budget: $OUT" '[ "$(count_events group-launched)" = 1 ]'
expect_ok g sim advance 2h	# 12:00: the tide at 86 %
expect_ok g watch --once --interval 1h
check "the scale-out is decided: $OUT" '[[ $OUT == *"group-out: group inf scales out by 1 (load-high"* ]]'
check "and refused by the budget, with its numbers: $OUT" \
	'[[ $OUT == *"warn group-budget: group inf: no member launched for load-high: refused by budget.month: this month'"'"'s spend would reach \$"*" against a budget of \$"* ]]'
check "one member still" '[ "$(g -o json ls --group inf | jq length)" = 1 ] && [ "$(count_events group-launched)" = 1 ]'

# The dry run of a scale-in names the member it would destroy, and destroys nothing.
expect_ok g config set budget.month 100000
expect_ok g sim advance 2h	# 14:00
expect_ok g watch --once --interval 1h
check "a second member now: $OUT" '[ "$(count_events group-launched)" = 2 ]'
expect_ok g sim advance 8h	# 22:00: the tide at 32 %
expect_ok g watch --once --dry-run --interval 1h
check "dry run: a scale-in, and the destroy it would order: $OUT" \
	'[[ $OUT == *"would: action group-in sim:i-"*"(load-low)"* ]] && [[ $OUT == *"would: action destroy-ordered sim:i-"*"(dry run: nothing sent)"* ]]'
check "both members still there" \
	'[ "$(g -o json ls --group inf | jq "[.[] | select(.state == \"running\")] | length")" = 2 ]'
check "the decision is not recorded" '[ "$(g -o json group show inf | jq -r .[0].last_scale_at)" = 2026-01-01T14:00:00Z ]'
pass
