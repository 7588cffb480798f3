#!/bin/bash
# gpurent audit end to end on the simulator's clock (the figures themselves are checked
# against a hand-computed fixture in tests/unit/test-audit.c): it agrees with `costs` on
# spend, reads the sample history that `metrics` records, finds the cheaper equivalent
# offer of an instance rented dear, and prints table, JSON and CSV.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

expect_ok g audit -o json
check "an empty audit: no rows, zero total" \
	'jq -e "(.rows == []) and .total.spend == 0 and .total.billed_hours == 0 and .cheaper_now == []" <<<"$OUT" >/dev/null'

# Rent the third-cheapest single H100, on demand, so that a cheaper equivalent exists.
expect_ok g launch --gpu h100 --count 1 --dry-run -o json
third=$(jq -r '.[2].id' <<<"$OUT")
expect_ok g launch "$third" --label audited
id=$OUT
# Two hours, sampled every minute for the last ten.
expect_ok g sim advance 110m
for i in $(seq 10); do
	expect_ok g metrics "$id"
	expect_ok g sim advance 60
done

expect_ok g audit -o json
a=$OUT
check "one row, the instance, with its label's spend" \
	'[ "$(jq -r "[.rows[].key] | join(\" \")" <<<"$a")" = "$id" ] && [ "$(jq -r .by <<<"$a")" = instance ]'
expect_ok g costs -o json
check "audit spend = costs spend ($(jq .total.spend <<<"$a") vs $(jq .spent <<<"$OUT"))" \
	'[ "$(jq .total.spend <<<"$a")" = "$(jq .spent <<<"$OUT")" ]'
check "billed about two hours, one GPU-hour per hour" \
	'jq -e ".total.billed_hours > 1.9 and .total.billed_hours <= 2.1 and .total.gpu_hours == .total.billed_hours" <<<"$a" >/dev/null'
check "utilisation and energy from the ten samples" \
	'jq -e ".rows[0] | (.util_mean_pct != null) and (.util_p95_pct >= .util_mean_pct) and (.energy_kwh > 0) and (.idle_pct >= 0) and (.idle_pct <= 100)" <<<"$a" >/dev/null'
check "utilisation against the default target of 85 %" \
	'jq -e ".target_pct == 85 and (.rows[0].util_of_target_pct - (.rows[0].util_mean_pct * 100 / 85) | fabs) <= 1" <<<"$a" >/dev/null'
check "kg CO2e from the region's grid intensity" 'jq -e ".rows[0].co2e_kg > 0" <<<"$a" >/dev/null'
check "cheaper now: an equivalent offer, saving per hour and per 730-hour month" \
	'jq -e ".cheaper_now | length == 1 and .[0].instance_id == \"$id\" and (.[0].saving_hour - (.[0].price_hour - .[0].offer_price_hour) | fabs) < 0.000001 and (.[0].saving_month - .[0].saving_hour * 730 | fabs) < 0.01" <<<"$a" >/dev/null'
check "the offer is no dearer than the first-ranked one" \
	'[ "$(jq -r .cheaper_now[0].offer_price_hour <<<"$a")" != null ]'

expect_ok g audit --by label -o csv
check "CSV: a header, the label, the total last" \
	'[ "$(sed -n 2p <<<"$OUT" | cut -d, -f1)" = audited ] && [ "$(tail -n 1 <<<"$OUT" | cut -d, -f1)" = total ]'
expect_ok g audit --by gpu
check "a table with the GPU, the total and the cheaper offer" \
	'grep -q "^H100" <<<"$OUT" && grep -q "^total" <<<"$OUT" && grep -q "cheaper now" <<<"$OUT"'
expect_ok g audit --offline -o json
check "--offline: no cheaper offers asked for" 'jq -e ".cheaper_now == null" <<<"$OUT" >/dev/null'
expect_ok g config set audit.target 50
expect_ok g config set audit.grid sa=0,na=0,eu=0,as=0,af=0,oc=0,au=0,ca=0,us=0,cn=0
expect_ok g audit -o json
check "audit.target and audit.grid apply" \
	'jq -e ".target_pct == 50 and .rows[0].co2e_kg == 0" <<<"$OUT" >/dev/null'
# Beyond the window: a 1-minute audit counts one minute.
expect_ok g audit --since 60 -o json
check "--since bounds the window" 'jq -e ".total.billed_hours <= 0.02" <<<"$OUT" >/dev/null'
expect_rc 2 g audit --by day
expect_rc 2 g audit --since yesterday
expect_rc 2 g audit extra
pass
