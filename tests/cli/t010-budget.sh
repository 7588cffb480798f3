#!/usr/bin/env bash
# Budgets count what is still provisioning and what this launch adds; budget.day and
# budget.month are each enforced; launch --dry-run refuses exactly what a launch refuses.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z; the clock stands still
# Worked out by hand from that time: 35200 s to midnight, 812800 s to 2026-10-01T00:00:00Z.
TO_MIDNIGHT=35200
TO_MONTH_END=812800

# Micro-dollars of RATE (micro-dollars per hour) over SECONDS, rounded half up.
accrue() { echo $((($1 * $2 + 1800) / 3600)); }
# Dollars with two decimals of MICROS, rounded half up, as the refusal prints them.
dollars() { printf '$%d.%02d' $((($1 + 5000) / 1000000)) $(((($1 + 5000) % 1000000) / 10000)); }

# The cheapest on-demand offer with at least three machines free: launched twice below.
expect_ok g offers type=on-demand -o json
offer=$(jq -r '[.[] | select(.available >= 3)][0].id' <<<"$OUT")
p=$(jq -r "[.[] | select(.id == \"$offer\")][0].price_hour * 1000000 | round" <<<"$OUT")
check "an offer to launch twice ($offer at $p micro-dollars/h)" '[[ $offer == sim:o-* ]] && [ "$p" -gt 0 ]'
day1=$(accrue "$p" $TO_MIDNIGHT)
month1=$(accrue "$p" $TO_MONTH_END)

# budget.day: this launch's own cost counts, on an empty ledger.
expect_ok g config set budget.day "$(awk "BEGIN { printf \"%.6f\", ($day1 - 10000) / 1e6 }")"
expect_rc 9 g launch "$offer"
check "refused by its own cost until midnight ($(dollars "$day1"))" \
	'[[ $ERR == *budget.day* && $ERR == *"would reach $(dollars "$day1")"* ]]'
expect_rc 9 g launch "$offer" --dry-run
check "the dry run refuses it the same way" '[[ $ERR == *"would reach $(dollars "$day1")"* ]]'

# budget.day: one launch fits, a second one does not while the first still provisions.
expect_ok g config set budget.day "$(awk "BEGIN { printf \"%.6f\", 1.5 * $day1 / 1e6 }")"
expect_ok g launch "$offer" --label first
first=$OUT
expect_ok g show "$first" -o json
check "the first is still provisioning" '[ "$(jq -r .state <<<"$OUT")" = provisioning ]'
expect_ok g costs -o json
check "costs: nothing burns, the provisioning instance counts in the projections" \
	'jq -e ".burn_hour == 0 and .provisioning_hour * 1000000 == $p and .projected_day * 1000000 == $day1 and .projected_month * 1000000 == $month1" <<<"$OUT" >/dev/null'
expect_rc 9 g launch "$offer" --dry-run
check "dry run: a second launch is refused" '[[ $ERR == *"would reach $(dollars $((2 * day1)))"* ]]'
expect_rc 9 g launch "$offer" --label second
check "a second launch is refused by budget.day ($(dollars $((2 * day1))))" \
	'[[ $ERR == *budget.day* && $ERR == *"would reach $(dollars $((2 * day1)))"* ]]'
expect_ok g ls -o ids
check "only the first was rented" '[ "$OUT" = "$first" ]'
expect_ok g config unset budget.day

# budget.month, on its own: the same rule to the end of the month.
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.6f\", 1.5 * $month1 / 1e6 }")"
expect_rc 9 g launch "$offer" --dry-run
check "dry run: refused by budget.month" '[[ $ERR == *budget.month* ]]'
expect_rc 9 g launch "$offer" --label second
check "refused by budget.month ($(dollars $((2 * month1))))" \
	'[[ $ERR == *budget.month* && $ERR == *"would reach $(dollars $((2 * month1)))"* ]]'
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.6f\", 2 * $month1 / 1e6 }")"
expect_ok g launch "$offer" --label second --dry-run
expect_ok g costs -o json
check "a dry run reserves nothing" 'jq -e ".provisioning_hour * 1000000 == $p" <<<"$OUT" >/dev/null'
expect_ok g launch "$offer" --label second
second=$OUT
expect_ok g costs -o json
check "two provisioning instances: twice the projection" \
	'jq -e ".provisioning_hour * 1000000 == 2 * $p and .projected_month * 1000000 == 2 * $month1" <<<"$OUT" >/dev/null'
expect_ok g config unset budget.month

# Once they run, they bill, and the reservations are gone rather than counted twice.
expect_ok g sim advance 2m
expect_ok g ls --state running -o ids
check "both running" '[ "$(sort <<<"$OUT" | tr "\n" " ")" = "$(printf "%s\n" "$first" "$second" | sort | tr "\n" " ")" ]'
expect_ok g costs -o json
check "burning both, nothing provisioning" \
	'jq -e ".burn_hour * 1000000 == 2 * $p and .provisioning_hour == 0" <<<"$OUT" >/dev/null'

# A dry run makes the offer checks of a real launch, with the same status and message.
expect_ok g offers type=interruptible -o ids -n 1
spot=$OUT
expect_rc 2 g launch "$spot" --bid 0.01
real=$ERR
check "a bid below the price is refused" '[[ $real == *"below the current price"* ]]'
expect_rc 2 g launch "$spot" --bid 0.01 --dry-run
check "the dry run refuses the same bid the same way" '[ "$ERR" = "$real" ]'
disk=$(g offers type=on-demand -o json | jq -r "[.[] | select(.id == \"$offer\")][0].disk_gb")
expect_rc 2 g launch "$offer" --disk $((disk + 1))
real=$ERR
expect_rc 2 g launch "$offer" --disk $((disk + 1)) --dry-run
check "more disk than the offer has: refused alike ($real)" '[[ $real == *"GB of disk"* && "$ERR" = "$real" ]]'
expect_rc 2 g launch "$offer" --bid 1 --dry-run
check "a bid on an on-demand offer: refused by the dry run" '[[ $ERR == *on-demand* ]]'
pass
