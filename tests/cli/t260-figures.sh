#!/bin/bash
# Issue 33: every figure of one instance that ran, stopped and ran again, pinned to values
# worked out by hand where each reaches the user: `costs` (JSON and table, per currency and
# converted), `audit` (JSON and table, per instance, label and currency) and the exporter's
# price, spend and burn series. The instance's samples cover only part of its billed time,
# so idle, covered and billed time all differ; it billed storage while stopped, so its spend
# and its compute spend differ. (tests/figures.tsv lists which figure each check pins.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z, T below
T=1790000000
DB="$GPURENT_HOME/state.db"

# Seed 42: sim:o-000075 is one H100-SXM-80GB in as-east at $1.89/h on demand, $0.013014/h
# of storage while stopped. The simulator takes 60 s to boot or start it, 12 s to stop it,
# and bills neither those seconds nor provisioning. Its ledger, by hand:
#   T + 0       launched, provisioning (a reservation, no spend)
#   T + 60      running                       compute  3600 s x 1.89/h     = 4.725 for both
#   T + 3660    stop; stopped at T + 3672     storage  7188 s x 0.013014/h = 0.025985 (rounded
#   T + 10860   start; running at T + 10920                                   from 0.02598462)
#   T + 16320   now (18:45:20), running since T + 10920: compute 5400 s
#   compute 9000 s x 1.89/h = 4.725; spend 4.725 + 0.025985 = 4.750985
id=$(g launch sim:o-000075 --label fig) || fail "launch"
expect_ok g sim advance 61m
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 2m		# T + 3780, stopped since T + 3672
expect_ok g costs -o json
# figure: storage-while-stopped
check "stopped: it burns its storage, \$0.013014/h, and has spent 1.89 + 0.013014 x 108 s" \
	'jq -e ".burn_hour == 0.013014 and .spent == 1.89039" <<<"$OUT" >/dev/null'
expect_ok g sim advance 118m		# T + 10860
expect_ok g start "$id"
expect_ok g sim advance 91m		# T + 16320
expect_ok g show "$id" -o json
check "running again since T + 10920" \
	'jq -e ".state == \"running\" and .state_since == \"2026-09-21T17:15:20Z\"" <<<"$OUT" >/dev/null'

# The history, as the sampler would have stored it: GPU 0 once a minute for an hour from
# T + 11520 (each sample covers the 60 s to the next): 0 % at 150 W for 20 minutes, then 90 %
# at 600 W for 40. Covered 3600 s of the 9000 billed, idle 1200 s.
expect_ok g audit --offline -o json	# makes the history's tables
sqlite3 "$DB" "INSERT INTO sample_series(instance_id, gpu) VALUES('$id', 0);
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 59)
	INSERT INTO samples(series, at, source, util, power)
	SELECT (SELECT id FROM sample_series WHERE instance_id = '$id'), $((T + 11520)) + k * 60, 0,
		CASE WHEN k < 20 THEN 0 ELSE 90 END, CASE WHEN k < 20 THEN 150 ELSE 600 END FROM m;" ||
	fail "insert the samples"
# And an hour in yuan, T + 7200 to T + 10800 at 12.60/h, written as the ledger writes it.
sqlite3 "$DB" "INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts,
	end_ts, currency) VALUES('sim:c-1', 'sim', 'fig', 'H100-SXM-80GB', 0, 12600000, $((T + 7200)),
	$((T + 10800)), 'CNY')" || fail "insert the yuan hour"

# costs at T + 16320, 18:45:20: 18880 s to midnight, 796480 s to 2026-10-01.
#   projected day    4.750985 + 1.89 x 18880 s  (9.912)   = 14.662985
#   projected month  4.750985 + 1.89 x 796480 s (418.152) = 422.902985
#   yuan: 12.60 spent today, nothing burning: 12.60 projected both ways
expect_ok g costs -o json
c=$OUT
# figure: compute-per-second
check "spent: compute and storage, to the micro-dollar ($(jq -c .currencies <<<"$c"))" \
	'jq -e ".currency == \"USD\" and .spent == 4.750985" <<<"$c" >/dev/null'
# figure: burn
check "burn: the running rate" 'jq -e ".burn_hour == 1.89 and .provisioning_hour == 0" <<<"$c" >/dev/null'
# figure: spent-today figure: spent-month
check "today and this month" 'jq -e ".spent_today == 4.750985 and .spent_month == 4.750985" <<<"$c" >/dev/null'
# figure: projected-day figure: projected-month
check "projected to midnight and to the month's end" \
	'jq -e ".projected_day == 14.662985 and .projected_month == 422.902985" <<<"$c" >/dev/null'
# figure: costs-per-currency
check "the yuan on their own" \
	'jq -e ".currencies[1] | .currency == \"CNY\" and .spent == 12.6 and .spent_today == 12.6 and .burn_hour == 0 and .projected_day == 12.6 and .projected_month == 12.6" <<<"$c" >/dev/null'
expect_ok g costs
check "the table, a row per currency" \
	'grep -q "^\$1\.890 *\$0\.000 *\$4\.75 *\$4\.75 *\$4\.75 *\$14\.66 *\$422\.90 " <<<"$OUT" &&
	 grep -q "^¥0\.000 *¥0\.000 *¥12\.60 *¥12\.60 *¥12\.60 *¥12\.60 *¥12\.60 " <<<"$OUT"'
expect_ok g costs --by instance -o json
check "by instance: its spend and burn" \
	'jq -e ".groups[] | select(.key == \"$id\") | .spent == 4.750985 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'

# audit over the default 7 days, listing the instance (its region, as-east: 540 g/kWh):
#   billed 9000 s = 2.5 h; spend 4.750985, compute spend 4.725
#   idle share     1200 / 9000                             = 13.3 %
#   waste          4.725 x 1200 / 9000                     = 0.63
#   GPU-hours      2.5 h x 1 GPU                           = 2.5
#   utilisation    (20 x 0 + 40 x 90) / 60 = 60 %, p95 90 %, 60 / 85 = 71 % of target
#   per utilised GPU-hour  4.750985 / (2.5 x 0.60)         = 3.167323
#   energy         (1200 s x 150 W + 2400 s x 600 W) / 3.6e6 = 0.45 kWh, measured
#   CO2e           0.45 kWh x 540 g/kWh                    = 0.243 kg
#   yuan           sim:c-1: 1 h, 12.60, no samples: idle 0, waste 0, no energy
expect_ok g audit -o json
a=$OUT
row=$(jq -c --arg id "$id" '.rows[] | select(.key == $id)' <<<"$a")
# figure: audit-billed-hours figure: audit-spend
check "audit: billed 2.5 h, spend 4.750985 ($row)" \
	'jq -e ".billed_hours == 2.5 and .spend == 4.750985 and .currency == \"USD\"" <<<"$row" >/dev/null'
# figure: audit-idle-share figure: audit-waste
check "idle 13.3 % of billed time, waste 0.63" 'jq -e ".idle_pct == 13.3 and .waste == 0.63" <<<"$row" >/dev/null'
# figure: audit-gpu-hours figure: audit-per-util-gpu-hour
check "2.5 GPU-hours, 3.167323 per utilised GPU-hour" \
	'jq -e ".gpu_hours == 2.5 and .per_effective_gpu_hour == 3.167323 and .util_mean_pct == 60 and .util_p95_pct == 90 and .util_of_target_pct == 71" <<<"$row" >/dev/null'
# figure: audit-kwh figure: audit-co2
check "0.45 kWh measured, 0.243 kg CO2e" \
	'jq -e ".energy_kwh == 0.45 and .energy_estimated == false and .co2e_kg == 0.243" <<<"$row" >/dev/null'
check "the yuan row and the totals per currency" \
	'jq -e "(.rows[] | select(.key == \"sim:c-1\") | .currency == \"CNY\" and .spend == 12.6 and .billed_hours == 1 and .waste == 0 and .energy_kwh == null) and (.totals | map([.currency, .spend, .waste, .billed_hours]) == [[\"USD\", 4.750985, 0.63, 2.5], [\"CNY\", 12.6, 0, 1]])" <<<"$a" >/dev/null'
check "the total: 3.5 h, 9.5 % idle (1200 / 12600 s), no amount without a rate" \
	'jq -e ".total | .billed_hours == 3.5 and .idle_pct == 9.5 and .spend == null and .waste == null and .co2e_kg == 0.243" <<<"$a" >/dev/null'
expect_ok g audit
check "the table's row" \
	'grep -q "^$id *2\.50 *\$4\.75 *60\.0 *90\.0 *71 *13\.3 *\$0\.63 *2\.50 *\$3\.167 *0\.450 *false *0\.243 *USD$" <<<"$OUT"'
expect_ok g audit --by label -o json
check "by label: fig in dollars and in yuan" \
	'jq -e "[.rows[] | [.key, .currency, .spend, .waste, .idle_pct]] == [[\"fig\", \"USD\", 4.750985, 0.63, 13.3], [\"fig\", \"CNY\", 12.6, 0, 0]]" <<<"$OUT" >/dev/null'

# At fx.CNY = 0.14 the totals add up in dollars: 4.750985 + 12.60 x 0.14 = 6.514985; waste 0.63.
expect_ok g config set fx.CNY 0.14
expect_ok g costs -o json
# figure: costs-converted-total
check "costs: the converted total" \
	'jq -e ".currency == \"USD\" and .converted == true and .spent == 6.514985 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'
expect_ok g audit -o json
# figure: audit-converted-total
check "audit: the converted total" \
	'jq -e ".total | .spend == 6.514985 and .waste == 0.63 and .converted == true" <<<"$OUT" >/dev/null'
expect_ok g config unset fx.CNY

# The exporter: the listed price, the ledger's spend since launch and the burn, in dollars.
start_exporter
wait_scrape '^gpurent_spend_dollars_total\{'
# figure: exporter-price
check "price series: 1.89" \
	'grep -q "^gpurent_instance_price_dollars_per_hour{instance_id=\"$id\",provider=\"sim\",label=\"fig\"} 1\.890000$" <<<"$OUT"'
# figure: exporter-spend
check "spend series: 4.750985" \
	'grep -q "^gpurent_spend_dollars_total{instance_id=\"$id\",provider=\"sim\",label=\"fig\"} 4\.750985$" <<<"$OUT"'
# figure: exporter-burn
check "burn series: 1.89" 'grep -q "^gpurent_burn_rate_dollars_per_hour 1\.890000$" <<<"$OUT"'
pass
