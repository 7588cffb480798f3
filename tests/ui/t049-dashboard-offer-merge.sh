#!/bin/bash
# t049 (issue 17 part 5): how the dashboard takes in an offers answer (GPURENT_UI_TRACE):
# with one provider, a changed set is taken over as it came ("taken", no copy of the whole
# array) and an unchanged one is compared where it lies ("same", nothing copied, nothing
# sorted again); with two providers the set is one array made from both ("copied"). The
# rows on screen stay those of `gpurent offers` throughout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/offers-grid.sh"
export GPURENT_SIM_TIME=1780000000 GPURENT_UI_TRACE=$T/trace
"$G" config set dashboard.offers_interval 1s >/dev/null || fail "config set"
all=$("$G" -o ids offers | wc -l)
merges() { grep -c "^$1 " "$GPURENT_UI_TRACE" 2>/dev/null; }

start_dash 160 30
wait_for " $all of $all offers" 100 || fail "offers: $(row 1)"
wait_gone 'sorting' 100 || fail "the first sort never ended: $(row 2)"
n=$(col 1 | wc -l)
[ "$(col 1)" = "$(cli price_hour --sort price | head -n "$n")" ] && ok "cheapest first" ||
	fail "first page: $(col 1 | head -3)"
[ "$(merges taken)" -ge 1 ] && ok "the first answer is taken as it came" ||
	fail "first answer: $(cat "$GPURENT_UI_TRACE" | grep -v -e '^frame' -e '^key' | head -5)"
t0=$(merges taken)
wait_until '[ "$(merges same)" -ge 2 ]' 100 && ok "unchanged answers are compared in place" ||
	fail "no 'same' answers: $(grep -v '^frame' "$GPURENT_UI_TRACE" | head -5)"
[ "$(merges taken)" = "$t0" ] && ok "and not taken again" || fail "taken $t0, then $(merges taken)"
[ "$(merges copied)" = 0 ] && ok "one provider: nothing copied" || fail "copied $(merges copied)"

# New prices six hours on: the next answer is taken over and shown.
"$G" sim advance 6h >/dev/null || fail "sim advance"
after=$(cli price_hour --sort price | head -n "$n")
wait_until '[ "$(merges taken)" -gt "$t0" ]' 100 && ok "a changed answer is taken over" ||
	fail "no new 'taken': $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
wait_until '[ "$(col 1)" = "$after" ]' 100 && ok "its prices are shown" ||
	fail "new prices not shown: $(col 1 | head -3), want $(echo "$after" | head -3)"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
tm kill-session -t ui

# Two providers: sim and the simulator's vast dialect, merged into one array.
"$G" sim serve --dialect vast --port 0 --api-key k >"$T/serve.out" 2>"$T/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
url=
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$T/serve.out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$T/serve.err" >&2; fail "sim serve did not start"; finish; }
export GPURENT_VAST_URL=$url GPURENT_VAST_API_KEY=k GPURENT_UI_TRACE=$T/trace2
both=$("$G" -o ids offers --provider sim --provider vast | wc -l)
start_dash 160 30 --provider sim --provider vast
wait_for " $both of $both offers" 150 && ok "both providers' offers in one table" ||
	fail "two providers: $(row 1)"
wait_until '[ "$(merges copied)" -ge 2 ]' 100 && ok "two providers' answers are copied into one" ||
	fail "no 'copied': $(grep -v '^frame' "$GPURENT_UI_TRACE" | head -5)"
wait_until '[ "$(merges same)" -ge 2 ]' 150 && ok "and unchanged ones compared in place" ||
	fail "no 'same' with two providers: $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
[ "$(merges taken)" = 0 ] && ok "never one provider's array alone" || fail "taken $(merges taken)"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
kill "$serve" 2>/dev/null
wait "$serve" 2>/dev/null
finish
