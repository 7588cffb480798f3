#!/bin/bash
# t047: sorting and filtering off the drawing path (issue 17 part 5). Every job of the
# offers grid's worker waits for a gate file (GPURENT_UI_SORT_GATE) that this test creates
# when it has seen what it needs, so a sort stays running as long as the test looks at it,
# however loaded the machine: the screen keeps answering with the previous order under a
# "sorting" mark (and its header counts that order's set, not a newer fetch waiting for its
# sort), a second key while a sort runs gives the second key's order (the first's never
# shows), and Ctrl-C in the middle of a sort leaves the terminal as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/offers-grid.sh"
export GPURENT_SIM_TIME=1780000000 GPURENT_SIM_OFFERS=30000 GPURENT_UI_SORT_GATE=$T/sort-gate
# Let the job that waits start: the worker takes the file away as it does.
release() {
	: >"$GPURENT_UI_SORT_GATE"
	wait_until '[ ! -e "$GPURENT_UI_SORT_GATE" ]' 300 || fail "no sort took the gate"
}
# Let every job start until none runs (a fetch's rows come as a job of their own).
drain() {
	local t
	for ((t = 0; t < 300; t++)); do
		screen | grep -q 'sorting' || { rm -f "$GPURENT_UI_SORT_GATE"; return 0; }
		[ -e "$GPURENT_UI_SORT_GATE" ] || : >"$GPURENT_UI_SORT_GATE"
		sleep 0.1
	done
	fail "$1: still sorting: $(row 2)"
}
# No refresh of the offers of its own while the test holds sorts at the gate.
"$G" config set dashboard.offers_interval 1h >/dev/null || fail "config set"

all=$("$G" -o ids offers | wc -l)
h100=$("$G" -o ids offers gpu=h100 | wc -l)

start_dash 160 30
wait_for 'sorting offers' 300 && ok "the first rows wait for their sort, and say so" ||
	fail "first sort: $(screen)"
release
wait_for " $all of $all offers" 300 || fail "offers: $(row 1)"
drain "the first sort"
n=$(col 1 | wc -l)
# What the command line finds, worked out before any key.
asc=$(cli price_hour --sort price | head -n "$n")
desc1=$(cli price_hour --sort price- | head -n 1)
per_gpu=$(cli price_per_gpu_hour --sort gpu_price | head -n "$n")
h100_desc=$(cli price_per_gpu_hour --sort gpu_price- gpu=h100 | head -n "$n")
[ "$(col 1)" = "$asc" ] && ok "cheapest first" || fail "first page: $(col 1 | head -3)"
first=$(row 3 | awk '{ print $1 }')

keys i
wait_for 'sorting' 20 && ok "i: the sort runs, marked in the header" || fail "mark: $(row 2)"
[ "$(col 1)" = "$asc" ] &&
	ok "the rows stay in their order while it runs" || fail "moved early: $(col 1 | head -3)"
keys j
for ((t = 0; t < 20; t++)); do [ "$(selected)" != "$first" ] && break; sleep 0.1; done
screen | grep -q 'sorting' && [ "$(selected)" = "$(row 4 | awk '{ print $1 }')" ] &&
	ok "j moves the selection while the sort runs" || fail "j: selected '$(selected)'"
# The second key supersedes the first's job, which has not started yet.
keys '>'
wait_for 'sorted by PER GPU-H, ascending' 20 || fail ">: $(row 29)"
[ "$(col 1 | head -n 1)" != "$desc1" ] || fail "the first key's order was drawn"
release
seen_desc=0
for ((t = 0; t < 300; t++)); do
	screen | grep -q 'sorting' || break
	# The first key's order (most expensive first) must never be drawn.
	[ "$(col 1 | head -n 1)" = "$desc1" ] && seen_desc=1
	sleep 0.1
done
screen | grep -q 'sorting' && fail "the sort never ended"
top
[ "$seen_desc" = 0 ] && ok "the superseded sort's order never showed" ||
	fail "the first key's order was drawn"
[ "$(col 2)" = "$per_gpu" ] &&
	ok "the second key's order: PER GPU-H ascending" || fail "order: $(col 2 | head -3)"
row 2 | grep -q 'PER GPU-H▲' && ok "the header marks it" || fail "header: $(row 2)"

# A filter typed while a sort runs: the last state of the line wins.
keys i / 'gpu=h100'
wait_for '^/gpu=h100' 20 || fail "typed: $(row 29)"
keys Enter
want=$h100
# The provider's answer to the filter is in (the offer cache keeps it) while the rows wait
# at the gate: the header still counts the set on screen, not the newer fetch.
wait_until "[ \"\$(sqlite3 '$GPURENT_HOME/state.db' 'SELECT count(*) FROM offer_cache WHERE n = $want')\" -gt 0 ]" 300 ||
	fail "no answer to the filter"
wait_for " of $want offers" 20 && fail "the header counts a fetch whose rows are not in: $(row 1)"
row 1 | grep -q " $all of $all offers" && ok "the header counts the rows on screen: $(row 1)" ||
	fail "header: $(row 1)"
release
# The filter also goes to the provider, whose rows come as one more job.
wait_for " $want of [0-9]+ offers" 300 && drain "the filter" &&
	ok "filter after sort: $want H100 offers" || fail "filter: $(row 1), want $want"
top
bad=$(screen | grep -E '^  sim:o-' | grep -v -c 'H100')
[ "$bad" = 0 ] && ok "only H100 rows" || fail "$bad rows are not H100"
[ "$(col 2)" = "$h100_desc" ] &&
	ok "in the order of the key before it (i: descending)" || fail "order: $(col 2 | head -3)"

# Ctrl-C in the middle of a sort.
keys '<'
wait_for 'sorting' 20 || fail "no sort running: $(row 2)"
keys C-c
wait_for 'DASH-EXIT-130' 100 && ok "Ctrl-C during a sort ends it (130)" || fail "C-c: $(screen)"
screen | grep -q 'TTY-OK' && ok "terminal modes restored" || fail "tty: $(screen)"
[ "$first" != "" ] || fail "no first row"
finish
