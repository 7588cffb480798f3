#!/bin/bash
# t602: the offers view's filter line (live, errors in place, Esc restores) and sorting.
. "$(dirname "$0")/lib.sh"
# A still market: the cheapest offer seen first must still be the cheapest when G is pressed
# (at lib.sh's speed the simulated availability changes every ten real seconds).
export GPURENT_SIM_TIME=1780000000

# The PRICE/H column of the first N rows, as numbers.
prices() { screen | sed -n 's/^  sim:o-[0-9i]* .*  \$\([0-9.]*\)  .*\$\([0-9.]*\)  .*\$[0-9.]*  .*/\1/p' | head -n "$1"; }
sorted() { sort -c -g; }

start_dash 140 40
wait_for '^  sim:o-' 50 || fail "no offers: $(screen)"
all=$(row 1 | sed -n 's/.* of \([0-9]*\) offers.*/\1/p')
[ -n "$all" ] && [ "$all" -gt 50 ] && ok "$all offers" || fail "count: $(row 1)"
prices 20 | sorted && ok "cheapest first by default" || fail "default order: $(prices 20)"
cheapest=$(prices 1)

keys /
wait_for '^/ *$' 20 && ok "/ opens the filter line" || fail "filter line: $(row 38)"
keys 'gpu=h100 gpus>=2'
wait_for '^/gpu=h100 gpus>=2' 20 || fail "typed: $(row 38)"
sleep 0.3
n=$(row 1 | sed -n 's/^.* \([0-9]*\) of [0-9]* offers.*/\1/p')
[ -n "$n" ] && [ "$n" -lt "$all" ] && [ "$n" -gt 0 ] && ok "live filter: $n of $all" ||
    fail "live: $(row 1)"
bad=$(screen | grep -E '^  sim:o-' | grep -v -c 'H100')
[ "$bad" = 0 ] && ok "only H100 rows" || fail "$bad rows are not H100: $(screen)"
keys Enter
wait_gone '^/gpu' 20 && ok "Enter keeps the filter" || fail "enter: $(row 38)"

keys / C-u 'pricee<3'
wait_for "unknown filter field 'pricee'" 20 && ok "an error shows in place" || fail "error: $(row 38)"
keys Enter
sleep 0.3
row 38 | grep -q '^/pricee<3' && ok "Enter keeps the line open while it is wrong" ||
    fail "stays: $(row 38)"
# The filter went to the provider too: what came back is what it kept.
kept=$(row 1 | sed -n 's/^.* \([0-9]*\) of \([0-9]*\) offers.*/\1 \2/p')
[ -n "$kept" ] && [ "${kept% *}" = "${kept#* }" ] && [ "${kept% *}" -lt "$all" ] &&
    ok "the last valid filter still applies ($kept)" || fail "kept: $(row 1)"
keys Escape
wait_gone '^/pricee' 20 && ok "Esc closes it" || fail "esc: $(row 38)"
row 1 | grep -q " ${kept% *} of ${kept% *} offers" && ok "Esc restores the previous filter" ||
    fail "restored: $(row 1)"
bad=$(screen | grep -E '^  sim:o-' | grep -v -c 'H100')
[ "$bad" = 0 ] && ok "still only H100 rows" || fail "$bad rows are not H100: $(screen)"
keys / C-u Enter
wait_for " [0-9]{3} of [0-9]{3} offers" 30 && ok "an empty filter shows everything" || fail "clear: $(row 1)"

# Sorting: > moves to the next column, i reverses.
keys '>'
wait_for 'sorted by PER GPU-H, ascending' 20 && ok "> sorts by the next column" || fail "sort: $(row 38)"
row 2 | grep -q 'PER GPU-H▲' && ok "the header marks the sort column" || fail "mark: $(row 2)"
keys '<' i
wait_for 'sorted by PRICE/H, descending' 20 && ok "< and i: price, descending" || fail "desc: $(row 38)"
prices 20 | sort -c -g -r && ok "most expensive first" || fail "order: $(prices 20)"
# G selects the last row (the cheapest, in this order) and scrolls it into view. The selected
# row is the one drawn in reverse video.
first=$(row 3 | awk '{print $1}')
selected() { tm capture-pane -e -p -t ui | grep $'\e\[7m  sim:o-' | sed 's/\x1b\[[0-9;]*m//g'; }
keys G
wait_gone "^  $first " 20 && ok "G scrolls away from the top" || fail "G did not scroll: $(screen)"
sel=$(selected)
[ "$sel" = "$(screen | grep '^  sim:o-' | tail -n 1)" ] && ok "the selection is on the last row shown" ||
	fail "G: selected '$sel', last row '$(screen | grep '^  sim:o-' | tail -n 1)'"
[[ $sel == *" \$$cheapest "* ]] && ok "G jumps to the end: the cheapest offer, \$$cheapest" ||
	fail "G: selected '$sel', expected the \$$cheapest offer"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
