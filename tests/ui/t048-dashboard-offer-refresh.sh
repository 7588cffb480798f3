#!/bin/bash
# t048 (issue 17 part 5): a refresh of the offers that finds the same market is not sorted
# and measured again (no new table swapped in, GPURENT_UI_TRACE), and one that brings new
# prices is shown; the header's "N of M offers" counts the set on screen, never a newer
# fetch whose rows are not in yet (its sort held at GPURENT_UI_SORT_GATE).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/offers-grid.sh"
export GPURENT_SIM_TIME=1780000000 GPURENT_UI_TRACE=$T/trace
"$G" config set dashboard.offers_interval 1s >/dev/null || fail "config set"
all=$("$G" -o ids offers | wc -l)
# Refreshes that found the market unchanged: compared in place, or not asked for at all
# (the simulator's market stamp).
unchanged() { grep -cE '^(same|unasked) ' "$GPURENT_UI_TRACE" 2>/dev/null; }
swaps() { grep -c '^swap' "$GPURENT_UI_TRACE" 2>/dev/null; }

start_dash 160 30
wait_for " $all of $all offers" 100 || fail "offers: $(row 1)"
wait_gone 'sorting' 100 || fail "the first sort never ended: $(row 2)"
n=$(col 1 | wc -l)
before=$(col 1)
[ "$before" = "$(cli price_hour --sort price | head -n "$n")" ] && ok "cheapest first" ||
	fail "first page: $(col 1 | head -3)"
# Two more answers of the same still market.
s0=$(swaps)
u0=$(unchanged)
wait_until '[ "$(unchanged)" -gt "$u0" ]' 100 || fail "no refresh"
u1=$(unchanged)
wait_until '[ "$(unchanged)" -gt "$u1" ]' 100 || fail "no second refresh"
[ "$(swaps)" = "$s0" ] && ok "two unchanged refreshes: no sort swapped in ($s0 in all)" ||
	fail "unchanged refreshes sorted again: $s0 then $(swaps) swaps"
[ "$(col 1)" = "$before" ] && ok "the same rows" || fail "rows changed: $(col 1 | head -3)"

# The simulated market six hours on: new prices at the next answer.
"$G" sim advance 6h >/dev/null || fail "sim advance"
after=$(cli price_hour --sort price | head -n "$n")
[ "$after" != "$before" ] || fail "the market did not move"
wait_until '[ "$(col 1)" = "$after" ]' 100 && ok "a refresh with new prices is shown" ||
	fail "new prices not shown: $(col 1 | head -3), want $(echo "$after" | head -3)"
[ "$(swaps)" -gt "$s0" ] && ok "and sorted in the worker" || fail "no swap"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
finish
