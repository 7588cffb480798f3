#!/bin/bash
# Issue 33: every figure of one instance that ran, stopped and ran again, pinned to values
# worked out by hand where each reaches the user: `costs` (JSON and table, per currency and
# converted), `audit` (JSON and table, per instance, label and currency) and the exporter's
# price, spend and burn series. The instance's samples cover only part of its billed time,
# so idle, covered and billed time all differ; it billed storage while stopped, so its spend
# and its compute spend differ. (tests/figures.tsv lists which figure each check pins.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=1790777600	# 2026-09-30T14:13:20Z, T below
T=1790777600
NOW=1790920800				# 2026-10-02T06:00:00Z

# Seed 42: sim:o-000075 is one H100-SXM-80GB in as-east at $1.89/h on demand, $0.013014/h
# of storage while stopped. Launched at T, the simulator takes 60 s to boot it, 10 s to stop
# it and 76 s to start it again, and bills none of those seconds. Its ledger, by hand:
#   T + 0       launched, provisioning (a reservation, no spend)
#   T + 60      running                compute  3600 s x 1.89/h           = 1.89
#   T + 3660    stop; stopped at T + 3670, storage 7190 s x 0.013014/h     = 0.025992
#                                                          (0.02599185, rounded)
#   T + 10860   start; running at T + 10936 (09-30 17:15:36)
#   NOW         running since T + 10936: compute 132264 s x 1.89/h = 36.74 h = 69.4386
#   since launch: compute 3600 + 132264 = 135864 s = 37.74 h, 71.3286;
#   spend 71.3286 + 0.025992 = 71.354592
#   this month (from 10-01 00:00): 30 h x 1.89 = 56.70; today (from 10-02 00:00): 6 h = 11.34
id=$(g launch sim:o-000075 --label fig) || fail "launch"
expect_ok g sim advance 61m
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 2m		# T + 3780, stopped since T + 3670
expect_ok g costs -o json
# figure: storage-while-stopped
check "stopped: it burns its storage, 0.013014/h; spent 1.89 + 0.013014 x 110 s = 1.890398" \
	'jq -e ".burn_hour == 0.013014 and .spent == 1.890398" <<<"$OUT" >/dev/null'
# figure: provider-balance figure: reconciled-burn
check "the simulator's account: 500 - 1.890398 = 498.109602, burning the storage" \
	'jq -e ".providers[0] | .provider == \"sim\" and .balance == 498.109602 and .reported_burn_hour == 0.013014 and .ledger_burn_hour == 0.013014" <<<"$OUT" >/dev/null'
expect_ok g sim advance 118m		# T + 10860
expect_ok g start "$id"
expect_ok g sim advance $((NOW - T - 10860))
expect_ok g show "$id" -o json
check "running again since T + 10936" \
	'jq -e ".state == \"running\" and .state_since == \"2026-09-30T17:15:36Z\"" <<<"$OUT" >/dev/null'

# The history, as the sampler would have stored it: GPU 0 once a minute for an hour from
# T + 11536 (each sample covers the 60 s to the next): 0 % at 150 W for 20 minutes, then 90 %
# at 600 W for 40. Covered 3600 s of the 135864 billed, idle 1200 s.
expect_ok g audit --offline -o json	# makes the history's tables
sqlite3 "$DB" "INSERT INTO sample_series(instance_id, gpu) VALUES('$id', 0);
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 59)
	INSERT INTO samples(series, at, source, util, power)
	SELECT (SELECT id FROM sample_series WHERE instance_id = '$id'), $((T + 11536)) + k * 60, 0,
		CASE WHEN k < 20 THEN 0 ELSE 90 END, CASE WHEN k < 20 THEN 150 ELSE 600 END FROM m;" ||
	fail "insert the samples"
# And an hour in yuan, 10-01 14:00 to 15:00 at 12.60/h, written as the ledger writes it.
sqlite3 "$DB" "INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts,
	end_ts, currency) VALUES('sim:c-1', 'sim', 'fig', 'H100-SXM-80GB', 0, 12600000,
	$((NOW - 16 * 3600)), $((NOW - 15 * 3600)), 'CNY')" || fail "insert the yuan hour"

# costs at NOW, 10-02 06:00: 18 h to midnight, 714 h to 11-01.
#   projected day    11.34 + 1.89 x 18 h (34.02)       = 45.36
#   projected month  56.70 + 1.89 x 714 h (1349.46)    = 1406.16
#   yuan: 12.60 this month, none today, nothing burning: 0 and 12.60 projected
expect_ok g costs -o json
c=$OUT
# figure: compute-per-second
check "spent this month, to the micro-dollar ($(jq -c .currencies <<<"$c"))" \
	'jq -e ".currency == \"USD\" and .spent == 56.7" <<<"$c" >/dev/null'
# figure: burn
check "burn: the running rate" 'jq -e ".burn_hour == 1.89 and .provisioning_hour == 0" <<<"$c" >/dev/null'
# figure: spent-today figure: spent-month
check "today 11.34, this month 56.70" 'jq -e ".spent_today == 11.34 and .spent_month == 56.7" <<<"$c" >/dev/null'
# figure: projected-day figure: projected-month
check "projected to midnight and to the month's end" \
	'jq -e ".projected_day == 45.36 and .projected_month == 1406.16" <<<"$c" >/dev/null'
# figure: costs-per-currency
check "the yuan on their own" \
	'jq -e ".currencies[1] | .currency == \"CNY\" and .spent == 12.6 and .spent_today == 0 and .spent_month == 12.6 and .burn_hour == 0 and .projected_day == 0 and .projected_month == 12.6" <<<"$c" >/dev/null'
expect_ok g costs
check "the table, a row per currency" \
	'grep -q "^\$1\.890 *\$0\.000 *\$56\.70 *\$11\.34 *\$56\.70 *\$45\.36 *\$1406\.16 " <<<"$OUT" &&
	 grep -q "^¥0\.000 *¥0\.000 *¥12\.60 *¥0\.00 *¥12\.60 *¥0\.00 *¥12\.60 " <<<"$OUT"'
# figure: spent-since figure: spent-by-day
expect_ok g costs --since 2026-09-30 --by day -o json
check "since its launch day: 71.354592, and by day 14.654592 (1.89 + 0.025992 + 24264 s
	from 17:15:36: 12.7386), 45.36, 11.34 ($(jq -c .rows <<<"$OUT"))" \
	'jq -e ".spent == 71.354592 and ([.rows[] | select(.currency == \"USD\") | [.key, .spent]] == [[\"2026-09-30\", 14.654592], [\"2026-10-01\", 45.36], [\"2026-10-02\", 11.34]])" <<<"$OUT" >/dev/null'
expect_ok g costs --by instance -o json
check "by instance: this month's spend and the burn" \
	'jq -e ".rows[] | select(.key == \"$id\") | .spent == 56.7 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'

# audit over the default 7 days, listing the instance (its region, as-east: 540 g/kWh):
#   billed 135864 s = 37.74 h; spend 71.354592, compute spend 71.3286
#   idle share     1200 / 135864                           = 0.9 %
#   waste          71.3286 x 1200 / 135864                 = 0.63 (1.89/h x 1200 s)
#   GPU-hours      37.74 h x 1 GPU                         = 37.74
#   utilisation    (20 x 0 + 40 x 90) / 60 = 60 %, p95 90 %, 60 / 85 = 71 % of target
#   per utilised GPU-hour  71.354592 / (37.74 x 0.60)      = 3.151148
#   energy         (1200 s x 150 W + 2400 s x 600 W) / 3.6e6 = 0.45 kWh, measured
#   CO2e           0.45 kWh x 540 g/kWh                    = 0.243 kg
#   yuan           sim:c-1: 1 h, 12.60, no samples: idle 0, waste 0, no energy
expect_ok g audit -o json
a=$OUT
row=$(jq -c --arg id "$id" '.rows[] | select(.key == $id)' <<<"$a")
# figure: audit-billed-hours figure: audit-spend
check "audit: billed 37.74 h, spend 71.354592 ($row)" \
	'jq -e ".billed_hours == 37.74 and .spend == 71.354592 and .currency == \"USD\"" <<<"$row" >/dev/null'
# figure: audit-idle-share figure: audit-waste
check "idle 0.9 % of billed time, waste 0.63" 'jq -e ".idle_pct == 0.9 and .waste == 0.63" <<<"$row" >/dev/null'
# figure: audit-gpu-hours figure: audit-per-util-gpu-hour
check "37.74 GPU-hours, 3.151148 per utilised GPU-hour" \
	'jq -e ".gpu_hours == 37.74 and .per_effective_gpu_hour == 3.151148 and .util_mean_pct == 60 and .util_p95_pct == 90 and .util_of_target_pct == 71" <<<"$row" >/dev/null'
# figure: audit-kwh figure: audit-co2
check "0.45 kWh measured, 0.243 kg CO2e" \
	'jq -e ".energy_kwh == 0.45 and .energy_estimated == false and .co2e_kg == 0.243" <<<"$row" >/dev/null'
check "the yuan row and the totals per currency" \
	'jq -e "(.rows[] | select(.key == \"sim:c-1\") | .currency == \"CNY\" and .spend == 12.6 and .billed_hours == 1 and .waste == null and .idle_pct == null and .energy_kwh == null) and (.totals | map([.currency, .spend, .waste, .billed_hours]) == [[\"USD\", 71.354592, 0.63, 37.74], [\"CNY\", 12.6, null, 1]])" <<<"$a" >/dev/null'
check "the total: 38.74 h, 0.9 % idle (1200 / 139464 s), no amount without a rate" \
	'jq -e ".total | .billed_hours == 38.74 and .idle_pct == 0.9 and .spend == null and .waste == null and .energy_kwh == 0.45 and .co2e_kg == 0.243" <<<"$a" >/dev/null'
expect_ok g audit
check "the table's row" \
	'grep -q "^$id *37\.74 *\$71\.35 *60\.0 *90\.0 *71 *0\.9 *\$0\.63 *37\.74 *\$3\.151 *0\.450 *samples *0\.243 *USD$" <<<"$OUT"'
expect_ok g audit --by label -o json
check "by label: fig in dollars and in yuan" \
	'jq -e "[.rows[] | [.key, .currency, .spend, .waste, .idle_pct]] == [[\"fig\", \"USD\", 71.354592, 0.63, 0.9], [\"fig\", \"CNY\", 12.6, null, null]]" <<<"$OUT" >/dev/null'

# At fx.CNY = 0.14 the totals add up in dollars: costs 56.70 + 12.60 x 0.14 = 58.464; audit
# 71.354592 + 1.764 = 73.118592, waste 0.63.
expect_ok g config set fx.CNY 0.14
expect_ok g costs -o json
# figure: costs-converted-total
check "costs: the converted total" \
	'jq -e ".currency == \"USD\" and .converted == true and .spent == 58.464 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'
expect_ok g audit -o json
# figure: audit-converted-total
check "audit: the converted total" \
	'jq -e ".total | .spend == 73.118592 and .waste == 0.63 and .converted == true" <<<"$OUT" >/dev/null'
expect_ok g config unset fx.CNY

# The exporter: the listed price, the ledger's spend since launch (not this month's) and the
# burn, in dollars.
start_exporter
wait_scrape '^gpurent_spend_dollars_total\{'
# figure: exporter-price
check "price series: 1.89" \
	'grep -q "^gpurent_instance_price_dollars_per_hour{instance_id=\"$id\",provider=\"sim\",label=\"fig\"} 1\.890000$" <<<"$OUT"'
# figure: exporter-spend
check "spend series: 71.354592" \
	'grep -q "^gpurent_spend_dollars_total{instance_id=\"$id\",provider=\"sim\",label=\"fig\"} 71\.354592$" <<<"$OUT"'
# figure: exporter-burn
check "burn series: 1.89" 'grep -q "^gpurent_burn_rate_dollars_per_hour 1\.890000$" <<<"$OUT"'
pass
