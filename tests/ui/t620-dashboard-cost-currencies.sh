#!/bin/bash
# t620: the costs view shows what `gpurent costs` shows (issue 24, item 1): each currency's
# figures side by side, in its own money, and their sum in dollars only where fx gives a
# rate, saying so; the lists by provider and by label have every currency's rows. A dollar
# instance (vast, $0.300/h, label us) and a yuan one (ppio, ¥2.160/h, label cn) bill now,
# written as the ledger writes them; fx.CNY = 0.14.
. "$(dirname "$0")/lib.sh"

"$G" config set fx.CNY 0.14 >/dev/null || { echo "config set fx failed" >&2; exit 1; }
"$G" costs >/dev/null || { echo "costs failed" >&2; exit 1; }
now=$(date +%s)
sqlite3 "$DB" \
    "INSERT INTO ledger(instance_id, provider, label, kind, rate_hour, start_ts, end_ts, currency)
     VALUES('vast:1', 'vast', 'us', 0, 300000, $now, 0, 'USD'),
           ('ppio:abc', 'ppio', 'cn', 0, 2160000, $now, 0, 'CNY')" ||
    { echo "sqlite3 insert failed" >&2; exit 1; }
# By hand: per day 24 x 0.300 = $7.20 and 24 x 2.160 = ¥51.84; in all 0.300 + 2.160 x 0.14
# = $0.6024 per hour.
"$G" -o json costs | grep -q '"burn_hour":0.6024,' || { echo "costs disagrees" >&2; exit 1; }

start_dash 140 40 --view costs
wait_for '^  Burn rate      \$0\.300, ¥2\.160 per hour, \$7\.20, ¥51\.84 per day at this rate' 50 &&
	ok "the burn of each currency, in its own money" || fail "burn: $(screen)"
wait_for '^  In all         \$0\.602 per hour, .* converted at your configured rate' 10 &&
	ok "the sum at the configured rate, saying so" || fail "in all: $(screen)"
wait_for '^ burn \$0\.300, ¥2\.160/h \|' 10 && ok "the header: both burns" || fail "header: $(row 0)"
wait_for '^  ppio +¥[0-9.]+ +¥2\.160 ' 10 && ok "by provider: the yuan row" ||
	fail "ppio row: $(screen)"
wait_for '^  vast +\$[0-9.]+ +\$0\.300 ' 10 && ok "by provider: the dollar row" ||
	fail "vast row: $(screen)"
wait_for ' cn +¥[0-9.]+ +¥2\.160$' 10 && ok "by label: cn in yuan" || fail "cn: $(screen)"
wait_for ' us +\$[0-9.]+ +\$0\.300$' 10 && ok "by label: us in dollars" || fail "us: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
tm kill-server 2>/dev/null

# Without the rate nothing is added up, and no line says otherwise.
"$G" config unset fx.CNY >/dev/null || { echo "config unset failed" >&2; exit 1; }
start_dash 140 40 --view costs
wait_for '^  Burn rate      \$0\.300, ¥2\.160 per hour' 50 && ok "no rate: side by side" ||
	fail "burn: $(screen)"
! screen | grep -q 'In all' && ok "no rate: no sum" || fail "summed: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
finish
