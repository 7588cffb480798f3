#!/bin/bash
# t082: the costs view shows the audit of the last 7 days (gpurent audit's total): GPU
# utilisation against audit.target, the idle share of billed time and its waste; and says
# so when there are no samples yet (unknown, not idle 0% and waste $0.00). Waste in yuan and in dollars is shown side by side, and
# added up only at the configured fx rate, saying so.
. "$(dirname "$0")/lib.sh"

inst=$("$G" -o ids launch --gpu h100 --count 1 --wait --timeout 120 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" sim advance 30m >/dev/null

start_dash 120 40
keys 4
wait_for "^  Last 7 days +no samples: GPU use, idle time and waste unknown " 300 &&
    ok "no samples: utilisation, idle time and waste unknown, not 0" || fail "no samples: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
tm kill-session -t ui

"$G" config set audit.target 99 >/dev/null
for i in 1 2 3 4 5; do
	"$G" metrics "$inst" >/dev/null && "$G" sim advance 60 >/dev/null
done
audit=$("$G" audit --offline -o json)
# The JSON gives the mean to 0.1 and the dashboard rounds the mean itself: a JSON x.5 is the
# mean within 0.05 of it, which the dashboard may show as either integer beside it.
lo=$(jq -r '.total.util_mean_pct - 0.05 + 0.5 | floor' <<<"$audit")
hi=$(jq -r '.total.util_mean_pct + 0.05 + 0.5 | floor' <<<"$audit")
util="($lo|$hi)"
start_dash 120 40
keys 4
wait_for "^  Last 7 days +GPU util $util% \\(target 99%\\), idle [0-9]+% of billed time, waste \\\$[0-9.]+" 300 &&
    ok "the audit's utilisation ($(jq .total.util_mean_pct <<<"$audit") %) against audit.target" || fail "audit line: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
tm kill-session -t ui

# An hour billed in yuan (a ppio row, on the wall clock, as the ledger writes it).
now=$(date +%s)
sqlite3 "$DB" \
    "INSERT INTO ledger(instance_id, provider, kind, rate_hour, start_ts, end_ts, currency)
     VALUES('ppio:abc', 'ppio', 0, 12600000, $((now - 7200)), $((now - 3600)), 'CNY')" ||
    fail "sqlite3 insert"
start_dash 170 40
keys 4
wait_for "waste \\\$[0-9.]+, ¥0\\.00 \\('gpurent audit'\\)" 300 &&
    ok "waste per currency, side by side" || fail "two currencies: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
tm kill-session -t ui
"$G" config set fx.CNY 0.14 >/dev/null
start_dash 170 40
keys 4
wait_for "waste \\\$[0-9.]+, ¥0\\.00 \\(\\\$[0-9.]+ converted at your configured rate\\)" 300 &&
    ok "added up only at the configured rate, saying so" || fail "fx.CNY: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
finish
