#!/usr/bin/env bash
# Interruptible launches without --bid bid spot.bid_margin over the current price, say so,
# and outlive a bid at exactly the current price; a --bid within the margin is warned about.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

# The bid for a price of P micro-dollars with a margin of M percent: P * (100 + M) / 100,
# rounded up to a tenth of a cent (1000 micro-dollars).
bid_for() { echo $(((($1 * (100 + $2) / 100) + 999) / 1000 * 1000)); }
# $X.XXX of MICROS, as launch prints a bid.
dollars3() { printf '$%d.%03d' $(($1 / 1000000)) $((($1 % 1000000) / 1000)); }

expect_ok g offers type=interruptible -o json
spot=$(jq -r '[.[] | select(.available >= 2)][0].id' <<<"$OUT")
p=$(jq -r "[.[] | select(.id == \"$spot\")][0].price_hour * 1000000 | round" <<<"$OUT")
check "an interruptible offer with two machines ($spot at $p)" '[[ $spot == sim:o-*i ]] && [ "$p" -gt 0 ]'
want=$(bid_for "$p" 20)

# The default margin is 20%; a dry run says the same bid as the launch.
expect_ok g launch "$spot" --dry-run -o json
check "dry run bids 20% over the price ($(dollars3 "$want"))" \
	'jq -e ".bid_hour * 1000000 == $want and .price_hour * 1000000 == $want" <<<"$OUT" >/dev/null'
expect_ok g launch "$spot" --dry-run --bid "$(awk "BEGIN { printf \"%.6f\", $want / 1e6 }")"
check "a bid at the margin is not warned about" '[[ $ERR != *warning* ]]'
expect_ok g launch "$spot" --label margin
margin=$OUT
check "the bid and what it protects against are said on stderr" \
	'[[ $ERR == *"bidding $(dollars3 "$want")/h"* && $ERR == *"20%"* && $ERR == *spot.bid_margin* && $ERR == *"outbid only when the market rises above $(dollars3 "$want")/h"* ]]'
check "no warning for the default bid" '[[ $ERR != *warning* ]]'
expect_ok g show "$margin" -o json
check "the instance bids and bills $(dollars3 "$want")" \
	'jq -e ".bid_hour * 1000000 == $want and .price_hour * 1000000 == $want" <<<"$OUT" >/dev/null'

# A bid within the margin is taken, with a warning.
expect_ok g launch "$spot" --label exact --bid "$(awk "BEGIN { printf \"%.6f\", $p / 1e6 }")"
exact=$OUT
check "a bid at the current price is warned about" '[[ $ERR == *warning* && $ERR == *spot.bid_margin* ]]'

# The market reprices every hour: the bid at the price is outbid first.
outbid=0
for i in $(seq 1 48); do
	g sim advance 1h >/dev/null
	if [ "$(g show "$exact" -o json | jq -r .state)" = stopped ]; then outbid=$i; break; fi
done
check "the bid at the current price is outbid (after $outbid h)" '[ $outbid -gt 0 ]'
expect_ok g show "$margin" -o json
check "the bid with the margin still runs then" '[ "$(jq -r .state <<<"$OUT")" = running ]'

# The margin is configurable, from 0 to 100 percent.
expect_rc 2 g config set spot.bid_margin 101
expect_rc 2 g config set spot.bid_margin 12.5
expect_ok g offers type=interruptible -o json
spot2=$(jq -r '[.[] | select(.available >= 1)][0].id' <<<"$OUT")
p2=$(jq -r "[.[] | select(.id == \"$spot2\")][0].price_hour * 1000000 | round" <<<"$OUT")
expect_ok g config set spot.bid_margin 50
expect_ok g launch "$spot2" --dry-run -o json
check "spot.bid_margin 50 bids $(dollars3 "$(bid_for "$p2" 50)")" \
	'jq -e ".bid_hour * 1000000 == $(bid_for "$p2" 50)" <<<"$OUT" >/dev/null'
expect_ok g config set spot.bid_margin 0
expect_ok g launch "$spot2" --dry-run -o json
check "spot.bid_margin 0 bids the current price" 'jq -e ".bid_hour * 1000000 == $p2" <<<"$OUT" >/dev/null'
pass
