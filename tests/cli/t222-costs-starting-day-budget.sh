#!/usr/bin/env bash
# costs between states and with a day budget (issue 24, item 5): an instance starting again
# after a stop is about to bill at its price, so it counts as provisioning in the
# projections (it counted as nothing); budget.day is shown beside budget.month, in the
# table, the JSON and, as a last column, the CSV. The same for a real provider (PPIO's
# dialect of sim serve) from what its listing says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z; the clock stands still
# By hand from that time, after the 4 minutes the test moves it: to midnight and to
# 2026-10-01T00:00:00Z.
TO_MIDNIGHT=$((35200 - 240))
TO_MONTH_END=$((812800 - 240))

accrue() { echo $((($1 * $2 + 1800) / 3600)); }
micros() { jq -r "$1 * 1000000 | round" <<<"$OUT"; }

expect_ok g launch --gpu h100 --count 8 --max-price 25
id=$OUT
expect_ok g sim advance 2m
expect_ok g show "$id" -o json
p=$(micros .price_hour)
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 2m
expect_ok g start "$id"
expect_ok g show "$id" -o json
check "$id is starting" '[ "$(jq -r .state <<<"$OUT")" = starting ]'
expect_ok g costs -o json
today=$(micros .spent_today)
month=$(micros .spent_month)
check "nothing burns while it starts" '[ "$(micros .burn_hour)" = 0 ]'
check "it provisions at its price, $p" '[ "$(micros .provisioning_hour)" = "$p" ]'
check "today's projection: spent plus $p until midnight" \
	'[ "$(micros .projected_day)" = $((today + $(accrue "$p" $TO_MIDNIGHT))) ]'
check "the month's: spent plus $p until its end" \
	'[ "$(micros .projected_month)" = $((month + $(accrue "$p" $TO_MONTH_END))) ]'

# budget.day beside budget.month, each where it is set.
expect_ok g config set budget.day 5
expect_ok g costs -o json
check "JSON: budget_day 5, budget_month null" \
	'[ "$(jq -c "[.budget_day, .budget_month, .currencies[0].budget_day]" <<<"$OUT")" = "[5,null,5]" ]'
expect_ok g costs
check "the table says the day's budget" 'grep -q "^budget_day  *\$5\.00$" <<<"$OUT"'
check "and the month's as unset" 'grep -q "^budget_month  *-$" <<<"$OUT"'
expect_ok g config set budget.month '300 CNY'
expect_ok g costs -o csv
check "CSV: the new column last, the old ones in their places" \
	'[ "$(head -1 <<<"$OUT")" = "burn_hour,provisioning_hour,spent,spent_today,spent_month,projected_day,projected_month,since,budget_month,currency,budget_day" ]'
check "CSV: the yuan month budget is not the dollars', the day's is" \
	'[[ $(sed -n 2p <<<"$OUT") == *",,USD,5" ]]'
expect_ok g config unset budget.month
expect_ok g config unset budget.day

# A real provider: its listing says "starting", and the ledger reserves its price in yuan.
ppio_beside_sim
expect_ok g -p ppio launch --gpu h100 --count 1 --image x
yid=$OUT
expect_ok serve_g ppio sim advance 2m
expect_ok g -p ppio stop --no-wait "$yid"
expect_ok serve_g ppio sim advance 2m
expect_ok g -p ppio start "$yid"
expect_ok g -p ppio show "$yid" -o json
check "$yid is starting" '[ "$(jq -r .state <<<"$OUT")" = starting ]'
y=$(micros .price_hour)
expect_ok g -p ppio costs -o json
check "ppio: nothing burns, it provisions at ¥$y micro-yuan/h" \
	'[ "$(jq -c ".currencies[] | select(.currency == \"CNY\") | [.burn_hour, .provisioning_hour * 1000000 | round]" <<<"$OUT")" = "[0,$y]" ]'
pass
