#!/bin/bash
# t605: launching an interruptible offer from the dashboard bids as `gpurent launch` does:
# spot.bid_margin over the current price, and the dialog says so and states the bid.
. "$(dirname "$0")/lib.sh"
# Spot prices move every simulated hour: at real speed none passes during the test.
export GPURENT_SIM_SPEED=1

"$G" config set spot.bid_margin 30 >/dev/null || fail "config set"
start_dash 120 40
wait_for '^  sim:o-' 50 || fail "no offers: $(screen)"
keys / 'type=interruptible' Enter
wait_gone '^  sim:o-[0-9]+ ' 20 || fail "filter: $(screen)"
wait_for '^  sim:o-[0-9]+i' 20 || fail "no interruptible offers: $(screen)"
keys L
wait_for 'Launch\?' 20 || fail "no dialog: $(screen)"
wait_for 'bids 30% over the current \$[0-9.]+' 20 && ok "the dialog says the margin" ||
    fail "margin: $(screen)"
# The price it was seen at, and the bid worked out by hand: 30% more, up to a tenth of a cent.
seen=$(screen | tr '\n' ' ' | sed -n 's/.*bids 30% over the current \$\([0-9.]*\).*/\1/p')
p=$(awk "BEGIN { printf \"%d\", $seen * 1000000 + 0.5 }")
want=$(((p * 130 / 100 + 999) / 1000 * 1000))
perhour=$(awk "BEGIN { printf \"\$%.3f per hour\", $want / 1e6 }")
screen | grep -q -F "$perhour" && ok "it states the bid as the price ($perhour)" ||
    fail "price: want $perhour: $(screen)"
keys y
wait_for 'launched sim:i-[0-9]+ at \$[0-9.]+/hour' 150 && ok "y launches" || fail "launch: $(screen)"
inst=$(row 38 | sed -n 's/.*launched \(sim:i-[0-9]*\).*/\1/p')
bid=$("$G" show "$inst" -o json | jq '.bid_hour * 1000000 | round')
[ "$bid" = "$want" ] && ok "it bid $want micro-dollars/h" || fail "bid $bid, want $want"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
