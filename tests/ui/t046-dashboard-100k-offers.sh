#!/bin/bash
# t046: the offers view over a market of 100,000 offers (issue 17 part 5). Sorting and
# filtering run in the grid's worker, and only the rows on screen are formatted: scrolling,
# sorting and filtering must still show exactly the rows `gpurent offers` finds, in its
# order. Ties may fall either way, so a page is compared by the values of the sort column.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/offers-grid.sh"
# A still market, the same for the dashboard and the command line.
export GPURENT_SIM_TIME=1780000000 GPURENT_SIM_OFFERS=110000

all=$("$G" -o ids offers | wc -l)
[ "$all" -ge 100000 ] && ok "$all offers in the market" || fail "market of $all offers"
# Until the worker's result is in: the "sorting" mark gone.
settled() { wait_gone 'sorting' 600 || fail "still sorting: $(row 2)"; }

start_dash 160 30
wait_for " $all of $all offers" 900 || fail "not all offers: $(row 1)"
settled
n=$(col 1 | wc -l)
[ "$n" -ge 20 ] && ok "a page of $n rows" || fail "rows: $(screen)"
[ "$(col 1)" = "$(cli price_hour --sort price | head -n "$n")" ] &&
	ok "cheapest first: the market's $n cheapest" || fail "first page: $(col 1 | head -3)"

keys i
wait_for 'sorted by PRICE/H, descending' 50 || fail "i: $(row 29)"
settled
top
[ "$(col 1)" = "$(cli price_hour --sort price- | head -n "$n")" ] &&
	ok "i: the $n most expensive first" || fail "descending: $(col 1 | head -3)"

# Scrolling draws rows that were never formatted before: the end of the order.
first=$(row 3 | awk '{ print $1 }')
keys G
wait_gone "^  $first " 50 || fail "G did not scroll"
[ "$(col 1)" = "$(cli price_hour --sort price- | tail -n "$n")" ] &&
	ok "G: the last page is the market's $n cheapest" || fail "last page: $(col 1 | tail -3)"
last=$(row 3 | awk '{ print $1 }')
keys g
wait_gone "^  $last " 50 || fail "g did not scroll back"
[ "$(col 1)" = "$(cli price_hour --sort price- | head -n "$n")" ] &&
	ok "g: back at the top" || fail "top: $(col 1 | head -3)"

keys '>'
wait_for 'sorted by PER GPU-H, ascending' 50 || fail ">: $(row 29)"
settled
top
[ "$(col 2)" = "$(cli price_per_gpu_hour --sort gpu_price | head -n "$n")" ] &&
	ok "> sorts by PER GPU-H" || fail "per GPU: $(col 2 | head -3)"

# The filter, in the worker too; it also goes to the provider, whose answer is the same.
want=$("$G" -o ids offers gpu=h100 'gpus>=2' | wc -l)
keys / 'gpu=h100 gpus>=2' Enter
wait_for " $want of [0-9]+ offers" 600 && ok "filter: $want of $all, as the command line" ||
	fail "filter count: $(row 1), want $want"
settled
top
[ "$(col 2)" = "$(cli price_per_gpu_hour --sort gpu_price gpu=h100 'gpus>=2' | head -n "$n")" ] &&
	ok "the filtered page, cheapest per GPU first" || fail "filtered: $(col 2 | head -3)"
bad=$(screen | grep -E '^  sim:o-' | grep -v -c 'H100')
[ "$bad" = 0 ] && ok "only H100 rows" || fail "$bad rows are not H100"
keys G
settled
[ "$(col 2)" = "$(cli price_per_gpu_hour --sort gpu_price gpu=h100 'gpus>=2' | tail -n "$n")" ] &&
	ok "G in the filtered rows: their last page" || fail "filtered end: $(col 2 | tail -3)"

keys q
wait_for 'DASH-EXIT-0' 100 && ok "q quits" || fail "quit: $(screen)"
screen | grep -q 'TTY-OK' && ok "terminal modes restored" || fail "tty: $(screen)"
finish
