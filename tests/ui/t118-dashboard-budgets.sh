#!/bin/bash
# t118: the costs view draws one bar per configured budget, each in its own currency
# (budget.day = 300 CNY beside budget.month = 500), and never converts: US-dollar spend is not
# counted against a yuan budget, and a line says which currencies no budget counts. The
# launch dialog projects a yuan offer against a yuan month budget. The offers grid sorts and
# filters dollars and yuan only through fx.CNY. In Chinese too.
. "$(dirname "$0")/lib.sh"

offer=$("$G" -o ids offers type=on-demand --limit 1 2>/dev/null)
inst=$("$G" -o ids launch --wait --timeout 120 "$offer" 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" sim advance 2h >/dev/null || { echo "sim advance failed" >&2; exit 1; }
"$G" config set budget.day '300 CNY' >/dev/null && "$G" config set budget.month 500 >/dev/null ||
	{ echo "config set failed" >&2; exit 1; }
# A configured rate does not turn the bar into a silent conversion either.
"$G" config set fx.CNY 0.14 >/dev/null || { echo "config set fx failed" >&2; exit 1; }

start_dash 120 40 --view costs
wait_for '^  Burn rate' 50 && ok "costs view" || fail "costs: $(screen)"
wait_for '^  Budget/day .* 0% of ¥300 projected' 30 && ok "the day's budget in yuan, none of the dollars counted" ||
	fail "day: $(screen)"
wait_for '^  Budget/month .* [0-9]+% of \$500 projected' 10 && ok "the month's budget in dollars" ||
	fail "month: $(screen)"
wait_for 'spend in USD is not counted' 10 && fail "USD is counted by the month's budget: $(screen)" ||
	ok "no notice while every currency has its budget"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null

# Only a yuan budget: the dollars are named as not counted, not converted into it.
"$G" config unset budget.month >/dev/null || { echo "config unset failed" >&2; exit 1; }
start_dash 120 40 --view costs
wait_for '^  Budget/day .* 0% of ¥300 projected' 50 && ok "yuan budget alone" || fail "day: $(screen)"
wait_for 'spend in USD is not counted: each budget counts its own currency' 10 &&
	ok "US-dollar spend named as not counted" || fail "notice: $(screen)"
! screen | grep -q 'Budget/month' && ok "no month bar without budget.month" || fail "month: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null

# The launch dialog projects the month against the budget in the offer's own currency: a
# yuan offer against budget.month in yuan (the dashboard once compared only dollar offers).
"$G" config set budget.month '2000 CNY' >/dev/null || { echo "config set failed" >&2; exit 1; }
# Its own world: in the shared one the sim instance would show as a yuan instance too.
mkdir -m 700 "$T/ppio-home"
GPURENT_HOME="$T/ppio-home" "$G" sim serve --dialect ppio --port 0 --api-key k >"$T/ppio.out" \
    2>"$T/ppio.err" &
ppio_pid=$!
trap 'kill "$ppio_pid" 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$T/ppio.out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { kill "$ppio_pid"; echo "sim serve ppio did not start" >&2; exit 1; }
export GPURENT_PPIO_URL=$url GPURENT_PPIO_API_KEY=k
start_dash 120 40 --provider ppio --view offers
wait_for 'ppio:' 50 && ok "ppio offers" || fail "offers: $(screen)"
keys L
wait_for 'would then project to ¥[0-9.,]+ of the ¥2,?000(\.00)? budget' 20 &&
	ok "a yuan offer projected against the yuan month budget" || fail "dialog: $(screen)"
keys n q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null

# The offers grid over dollars and yuan sorts as `gpurent offers` does: without a rate each
# currency together (dollars first), at fx.CNY in dollars; a dollar price filter meets yuan
# offers only at the rate, and without one it is refused on the filter line.
# The first money cell of each offer row (PRICE/H), in screen order.
prices() { screen | grep -E '^ *(sim|ppio):' | sed -nE 's/^[^$¥]*([$¥][0-9.,]+).*/\1/p' | tr -d ,; }
signs() { prices | sed -E 's/[0-9.]+$//'; }
in_dollars() { prices | sed -e 's/^\$//' -e 's/^¥\(.*\)/\1 0.14/' | awk 'NF == 2 { $1 *= $2 } { print $1 }'; }
h100() {
	keys / C-u "gpu=H100 gpus=1 type=on-demand$1"
	wait_for "^/gpu=H100 gpus=1 type=on-demand$1" 20 || fail "typed: $(screen)"
	keys Enter
}
"$G" config unset fx.CNY >/dev/null || { echo "config unset failed" >&2; exit 1; }
start_dash 200 60 --provider sim,ppio --view offers
wait_for '^ *sim:' 50 || fail "offers: $(screen)"
h100 ""
wait_until '[ "$(signs | uniq | tr -d "\n")" = "\$¥" ]' 100 &&
	ok "no rate: dollars, then yuan" || fail "grouped: $(prices | tr '\n' ' ')"
wait_until 'prices | grep "^\\$" | tr -d "\$" | sort -n -c 2>/dev/null' 10 &&
	ok "each currency by price" || fail "dollars sorted: $(prices | tr '\n' ' ')"
keys / C-u 'price<1.75'
wait_for 'price filters are in US dollars' 20 && ok "a price filter without a rate: refused" ||
	fail "refusal: $(screen)"
keys Escape q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null
"$G" config set fx.CNY 0.14 >/dev/null || { echo "config set fx failed" >&2; exit 1; }
start_dash 200 60 --provider sim,ppio --view offers
wait_for '^ *sim:' 50 || fail "offers: $(screen)"
h100 ""
# Both currencies in one order of dollars at the rate. The market's prices move with the
# hour: whether yuan and dollar offers interleave, or the yuan ones all come first, depends
# on when the test runs (after midnight UTC they did not interleave), so the order in dollars
# is what is checked, not the interleaving.
wait_until '[ "$(signs | sort -u | wc -l)" -eq 2 ] && in_dollars | sort -g -c 2>/dev/null' 100 &&
	ok "fx.CNY: one order, in dollars at the rate" || fail "converted: $(prices | tr '\n' ' ')"
# A bound just over the third cheapest in dollars: every row under it, at the rate.
bound=$(in_dollars | sort -g | sed -n 3p | awk '{ printf "%.4f", $1 + 0.00005 }')
h100 " price<=$bound"
wait_until '[ -n "$(prices)" ] && [ "$(in_dollars | awk "\$1 > $bound" | wc -l)" = 0 ]' 100 &&
	ok "price<=$bound at the rate: $(prices | sort -u | tr '\n' ' ')" ||
	fail "filtered: $(prices | tr '\n' ' ')"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null
kill "$ppio_pid" 2>/dev/null
wait "$ppio_pid" 2>/dev/null
unset GPURENT_PPIO_URL GPURENT_PPIO_API_KEY
"$G" config unset budget.month >/dev/null || { echo "config unset failed" >&2; exit 1; }

# The same in Chinese.
. "$(dirname "$0")/zh.sh"
start_dash 120 40 --view costs
wait_for '^  每日预算 .* 预计达到 ¥300 的 0%' 50 && ok "in Chinese: 每日预算 in yuan" || fail "zh: $(screen)"
wait_for 'USD 的花费未计入' 10 && ok "in Chinese: the notice" || fail "zh notice: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
finish
