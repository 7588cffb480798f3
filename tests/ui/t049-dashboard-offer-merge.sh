#!/bin/bash
# t049 (issue 17 part 5): how the dashboard takes in an offers answer (GPURENT_UI_TRACE):
# with one provider, a changed set is taken over as it came ("taken", no copy of the whole
# array) and an unchanged one is compared where it lies ("same", nothing copied, nothing
# sorted again); once the lane holds the simulator's market stamp, an unchanged market is
# not even asked for ("unasked": the offer cache keeps its last answer), and a launch or the
# clock's next ten minutes bring a new answer; with two providers the set is one array made
# from both ("copied"). The rows on screen stay those of `gpurent offers` throughout.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/offers-grid.sh"
export GPURENT_SIM_TIME=1780000000 GPURENT_UI_TRACE=$T/trace
"$G" config set dashboard.offers_interval 1s >/dev/null || fail "config set"
all=$("$G" -o ids offers | wc -l)
merges() { grep -c "^$1 " "$GPURENT_UI_TRACE" 2>/dev/null; }
# When the provider last answered (the offer cache keeps each answer with its time).
fetched() { sqlite3 "$DB" 'SELECT coalesce(max(fetched_at), 0) FROM offer_cache'; }

start_dash 160 30
wait_for " $all of $all offers" 100 || fail "offers: $(row 1)"
wait_gone 'sorting' 100 || fail "the first sort never ended: $(row 2)"
n=$(col 1 | wc -l)
[ "$(col 1)" = "$(cli price_hour --sort price | head -n "$n")" ] && ok "cheapest first" ||
	fail "first page: $(col 1 | head -3)"
[ "$(merges taken)" -ge 1 ] && ok "the first answer is taken as it came" ||
	fail "first answer: $(cat "$GPURENT_UI_TRACE" | grep -v -e '^frame' -e '^key' | head -5)"
t0=$(merges taken)
# The first answer came from the offer cache: the fresh one after it is the same market.
wait_until '[ "$(merges same)" -ge 1 ]' 100 && ok "an unchanged answer is compared in place" ||
	fail "no 'same' answer: $(grep -v '^frame' "$GPURENT_UI_TRACE" | head -5)"
s0=$(merges same)
f0=$(fetched)
wait_until '[ "$(merges unasked)" -ge 3 ]' 100 &&
	ok "then the market's stamp is asked instead: unchanged, nothing fetched" ||
	fail "no 'unasked' refreshes: $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
[ "$(fetched)" = "$f0" ] && ok "the provider's offers were not asked" ||
	fail "offers fetched at $f0, then $(fetched)"
[ "$(merges same)" = "$s0" ] && [ "$(merges taken)" = "$t0" ] && ok "and not taken again" ||
	fail "same $s0, then $(merges same); taken $t0, then $(merges taken)"
[ "$(merges copied)" = 0 ] && ok "one provider: nothing copied" || fail "copied $(merges copied)"

# Another process rents the last machine of an offer: it leaves the market on screen.
last=$("$G" --no-header --fields id,available offers type=on-demand | awk '$2 == 1 { print $1; exit }')
[ -n "$last" ] || fail "no offer with one machine left"
"$G" launch "$last" >/dev/null 2>"$T/launch.err" || fail "launch: $(cat "$T/launch.err")"
wait_for " $((all - 1)) of $((all - 1)) offers" 100 && ok "a launch elsewhere is shown" ||
	fail "after the launch: $(row 1)"
[ "$(merges taken)" -gt "$t0" ] && ok "as a new answer" || fail "no new 'taken'"
t0=$(merges taken)
# The next ten minutes: machines come and go.
"$G" sim advance 10m >/dev/null || fail "sim advance 10m"
now=$("$G" -o ids offers | wc -l)
wait_until '[ "$(merges taken)" -gt "$t0" ]' 100 && ok "ten minutes on, a new answer" ||
	fail "no new 'taken' after 10m: $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
wait_for " $now of $now offers" 100 && ok "with the market's offers" || fail "10m: $(row 1)"
t0=$(merges taken)

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
# The vast dialect has no stamp: it is asked every time, as before; sim is not.
wait_until '[ "$(merges unasked)" -ge 2 ]' 150 && ok "sim's lane asks its stamp only" ||
	fail "no 'unasked' with two providers: $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
s0=$(merges same)
wait_until '[ "$(merges same)" -gt "$s0" ]' 150 && ok "vast's is asked every time" ||
	fail "vast not asked again: $(grep -v '^frame' "$GPURENT_UI_TRACE" | tail -5)"
[ "$(merges taken)" = 0 ] && ok "never one provider's array alone" || fail "taken $(merges taken)"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
kill "$serve" 2>/dev/null
wait "$serve" 2>/dev/null
finish
