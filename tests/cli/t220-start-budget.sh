#!/usr/bin/env bash
# Starting a stopped instance resumes its billing, so budget.day and budget.month admit it
# exactly as they admit a launch (issue 24, item 2): counted at its price until midnight
# beside what is spent and what the stopped disk costs, refused with status 9 and the
# launch's message unless --force.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z; the clock stands still
# By hand: 35200 s from that time to midnight; the test moves the clock 4 minutes first.
TO_MIDNIGHT=$((35200 - 240))

accrue() { echo $((($1 * $2 + 1800) / 3600)); }
dollars() { printf '$%d.%02d' $((($1 + 5000) / 1000000)) $(((($1 + 5000) % 1000000) / 10000)); }
micros() { jq -r "$1 * 1000000 | round" <<<"$OUT"; }

expect_ok g launch --gpu h100 --count 8 --max-price 25 --label big
id=$OUT
expect_ok g sim advance 2m
expect_ok g show "$id" -o json
check "$id runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'
p=$(micros .price_hour)
s=$(micros .storage_hour)
check "an 8 x H100 at $p and its disk at $s micro-dollars/h" '[ "$p" -gt 10000000 ] && [ "$s" -gt 0 ]'
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 2m
expect_ok g show "$id" -o json
check "$id stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g config set budget.day 5
expect_ok g costs -o json
spent=$(micros .spent_today)
check "stopped: only the disk bills until midnight" \
	'[ "$(micros .projected_day)" = $((spent + $(accrue "$s" $TO_MIDNIGHT))) ]'

# Today's spend, the disk until this moment's midnight and the instance at its price.
want=$(dollars $((spent + $(accrue "$s" $TO_MIDNIGHT) + $(accrue "$p" $TO_MIDNIGHT))))
expect_rc 9 g start "$id"
check "refused by budget.day, as a launch is: would reach $want" \
	'[[ $ERR == *"$id: refused by budget.day: today'"'"'s spend would reach $want against a budget of \$5.00 (--force overrides)"* ]]'
expect_ok g show "$id" -o json
check "not started" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g config set budget.month 5
expect_ok g config unset budget.day
expect_rc 9 g start "$id"
check "refused by budget.month" '[[ $ERR == *"refused by budget.month: this month"* ]]'
expect_ok g config set budget.day 5

# --force starts it all the same; a budget that fits lets it start without one.
expect_ok g start --force "$id"
check "--force: started" '[ "$OUT" = "$id" ]'
expect_ok g show "$id" -o json
check "starting" '[ "$(jq -r .state <<<"$OUT")" = starting ]'
expect_ok g sim advance 2m
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 2m
expect_ok g config unset budget.month
expect_ok g config set budget.day 1000
expect_ok g start "$id"
check "within the budget: started" '[ "$OUT" = "$id" ]'
pass
