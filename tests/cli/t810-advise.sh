#!/bin/bash
# Issue 29.2: advise on a recorded ledger (steady 4 GPUs around the clock, peaks to 12 by
# day) puts about 4 on a term and the rest on demand, with a saving worked out by hand
# below to the cent; the load shape, the balance sheet, an unsized instance and a second
# currency, each figure pinned where it reaches the user (JSON and table).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/zh.sh"
NOW=1790812800			# 2026-10-01T00:00:00Z, a Thursday
S=$((NOW - 30 * 86400))		# 2026-09-01T00:00:00Z, a Tuesday
export GPURENT_SIM_TIME=$NOW	# the sim's rows are read on its clock, fixed at NOW

# The fixture, as the ledger writes it (one GPU each: the samples below say so):
#   sim:s-1..4   H100-SXM-80GB, $2.00/h, S to NOW (720 h each, around the clock)
#   sim:p-1..8   H100-SXM-80GB, $2.00/h, 08:00 to 20:00 UTC on each of the 30 days (360 h)
#   sim:y-1      H100-SXM-80GB, ¥12.60/h, S to NOW (720 h)
#   sim:u-1      A100-SXM-80GB, $1.50/h, the last 10 h, no samples: its GPUs are unknown
# and two samples a minute apart at 68 % of GPU 0 of each but sim:u-1, on 09-01 09:00.
expect_ok g audit --offline -o json	# makes the history's tables
sqlite3 "$DB" "
	WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 4)
	INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts,
		currency)
	SELECT 'sim:s-' || i, 'sim', 'base', 'H100-SXM-80GB', 0, 2000000, $S, $NOW, 'USD' FROM k;
	WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 8),
		d(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM d WHERE j < 29)
	INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts,
		currency)
	SELECT 'sim:p-' || i, 'sim', 'peak', 'H100-SXM-80GB', 0, 2000000,
		$S + j * 86400 + 8 * 3600, $S + j * 86400 + 20 * 3600, 'USD' FROM k, d;
	INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts,
		currency)
	VALUES('sim:y-1', 'sim', 'yuan', 'H100-SXM-80GB', 0, 12600000, $S, $NOW, 'CNY'),
		('sim:u-1', 'sim', 'unsized', 'A100-SXM-80GB', 0, 1500000, $NOW - 36000, $NOW,
		'USD');
	INSERT INTO sample_series(instance_id, gpu)
		SELECT DISTINCT instance_id, 0 FROM ledger WHERE instance_id != 'sim:u-1';
	INSERT INTO samples(series, at, source, util, power)
		SELECT id, $S + 9 * 3600 + k * 60, 0, 68, 500 FROM sample_series,
		(SELECT 0 AS k UNION ALL SELECT 1);" || fail "insert the fixture"

# The mix in dollars, H100, over the 720 h observed:
#   GPU-hours   4 x 720 + 8 x 360 = 5760, paid 5760 x 2.00 = 11520.00
#   at once     12 GPUs 12 h a day, 4 the other 12 h: the 10th percentile (the base) is 4,
#               the peak 12; the base covers 4 x 720 = 2880 GPU-hours, 2880 are above it
#   1mo (20 %)  the base on the term 4 x 720 h x 2.00 x 0.80 = 4608.00, the rest on demand
#               2880 x 2.00 = 5760.00; saving 11520.00 - 4608.00 - 5760.00 = 1152.00
#   3mo (30 %)  4 x 720 x 2.00 x 0.70 = 4032.00 + 5760.00; saving 1728.00 (the best)
# In yuan: one GPU all the time, base 1, paid 720 x 12.60 = 9072.00; 1mo: 9072.00 x 0.80
#   = 7257.60 on the term, nothing on demand, saving 1814.40; 3mo: 6350.40, saving 2721.60.
# Break-even: 730 h x 0.80 = 584 h a month, 730 x 0.70 = 511.
expect_ok g advise --offline -o json
a=$OUT
usd=$(jq -c '.groups[] | select(.gpu == "H100-SXM-80GB" and .currency == "USD")' <<<"$a")
# figure: advise-base figure: advise-peak
check "the load: 12 instances, 720 h, 5760 GPU-hours, base 4, peak 12 ($usd)" \
	'jq -e ".instances == 12 and .span_hours == 720 and .gpu_hours == 5760 and .base_gpus == 4 and .peak_gpus == 12 and .base_gpu_hours == 2880 and .above_base_gpu_hours == 2880" <<<"$usd" >/dev/null'
# figure: advise-saving
check "paid 11520.00, the best term 3mo saves 1728.00" \
	'jq -e ".paid == 11520 and .best_term == \"3mo\" and .saving == 1728" <<<"$usd" >/dev/null'
# figure: advise-plan
check "each term's plan ($(jq -c .plans <<<"$a"))" \
	'jq -e "[.plans[] | [.gpu, .currency, .term, .term_cost, .demand_cost, .saving]] == [[\"H100-SXM-80GB\", \"USD\", \"1mo\", 4608, 5760, 1152], [\"H100-SXM-80GB\", \"USD\", \"3mo\", 4032, 5760, 1728], [\"H100-SXM-80GB\", \"CNY\", \"1mo\", 7257.6, 0, 1814.4], [\"H100-SXM-80GB\", \"CNY\", \"3mo\", 6350.4, 0, 2721.6]]" <<<"$a" >/dev/null'
# figure: advise-saving
check "the savings per currency, never added up" \
	'jq -e ".savings == [{\"currency\": \"USD\", \"paid\": 11520, \"saving\": 1728}, {\"currency\": \"CNY\", \"paid\": 9072, \"saving\": 2721.6}]" <<<"$a" >/dev/null'
# figure: advise-break-even
check "the terms, assumed, with their break-even ($(jq -c .terms <<<"$a"))" \
	'jq -e "[.terms[] | [.term, .months, .discount_pct, .break_even_hours_month, .assumed]] == [[\"1mo\", 1, 20, 584, true], [\"3mo\", 3, 30, 511, true]]" <<<"$a" >/dev/null'

# A longer window observes the same 720 h (from the first billed second): the term costs no
# more for the ten days before anything ran.
expect_ok g advise --offline --since 40d -o json
# figure: advise-plan
check "--since 40d: still 720 h, 4608.00 on a month's term ($(jq -c .plans[0] <<<"$OUT"))" \
	'jq -e "(.groups[0] | .span_hours == 720 and .base_gpus == 4) and (.plans[0] | .term_cost == 4608 and .saving == 1152)" <<<"$OUT" >/dev/null'

# The shape: hours 08-19 UTC 12 GPUs x 30 days = 360 GPU-hours each, the others 4 x 30 = 120;
# a day 4 x 24 + 8 x 12 = 192 GPU-hours, September 2026 has five Tuesdays and Wednesdays
# (960) and four of every other day (768).
# figure: advise-shape
check "GPU-hours by hour of day and by weekday ($(jq -c '.shape[0]' <<<"$a"))" \
	'jq -e ".shape[0] | .gpu == \"H100-SXM-80GB\" and .currency == \"USD\" and .by_hour == ([range(8)] | map(120)) + ([range(12)] | map(360)) + ([range(4)] | map(120)) and .by_weekday == [768, 960, 960, 768, 768, 768, 768]" <<<"$a" >/dev/null'

# sim:u-1 has no sample and is not listed: out of the mix, its 10 h and 15.00 said so.
# figure: advise-unsized
check "the unsized instance, nothing invented" \
	'jq -e ".groups[] | select(.gpu == \"A100-SXM-80GB\") | .instances == 0 and .unsized_instances == 1 and .unsized_hours == 10 and .unsized_paid == 15 and .base_gpus == null and .gpu_hours == null and .paid == null and .saving == null and .best_term == null" <<<"$a" >/dev/null'

# The balance sheet, H100 in dollars (989.5 dense BF16 TFLOPS):
#   TFLOP-hours            5760 x 989.5                               = 5699520
#   per utilised GPU-hour  11520 / (5760 x 0.68) = 2.941176 (audit's, to the micro-dollar)
#   per utilised TFLOP-h   2.941176 / 989.5 = 0.00297238               -> 0.002972
#   at the 85 % target     11520 / (5760 x 0.85 x 989.5) = 0.00237791  -> 0.002378
#   observed               12 instances x 120 s = 1440 s               = 0.4 h
# In yuan: 9072 / (720 x 0.68) = 18.529412; / 989.5 = 0.018726; at 85 %:
#   9072 / (720 x 0.85 x 989.5) = 0.014981.
# figure: advise-balance
check "the balance sheet ($(jq -c .balance <<<"$a"))" \
	'jq -e "[.balance[] | [.gpu, .currency, .instances, .gpu_hours, .tflops, .tflop_hours, .util_mean_pct, .observed_instances, .observed_hours, .spend, .per_util_tflop_hour, .per_tflop_hour_at_target, .offer_id]] == [[\"H100-SXM-80GB\", \"USD\", 12, 5760, 989.5, 5699520, 68, 12, 0.4, 11520, 0.002972, 0.002378, null], [\"A100-SXM-80GB\", \"USD\", 1, null, 312, null, null, 0, 0, 15, null, null, null], [\"H100-SXM-80GB\", \"CNY\", 1, 720, 989.5, 712440, 68, 1, 0.03, 9072, 0.018726, 0.014981, null]]" <<<"$a" >/dev/null'

expect_ok g advise --offline
check "the table's rows" \
	'grep -q "^H100-SXM-80GB *USD *12 *720\.00 *5760\.00 *4 *12 *2880\.00 *2880\.00 *\$11520\.00 *3mo *\$1728\.00 " <<<"$OUT" &&
	 grep -q "^H100-SXM-80GB *USD *1mo *\$4608\.00 *\$5760\.00 *\$1152\.00$" <<<"$OUT" &&
	 grep -q "^H100-SXM-80GB *CNY *3mo *¥6350\.40 *¥0\.00 *¥2721\.60$" <<<"$OUT" &&
	 grep -q "^1mo *1 *20 *584\.0$" <<<"$OUT" &&
	 grep -q "^A100-SXM-80GB *USD *0 *- *- *- *- *- *- *- *- *- *0 *1 *10\.00$" <<<"$OUT" &&
	 grep -q "^USD *\$11520\.00 *\$1728\.00$" <<<"$OUT" && grep -q "^CNY *¥9072\.00 *¥2721\.60$" <<<"$OUT" &&
	 grep -q "assumed" <<<"$OUT"'
check "the table's balance sheet" \
	'grep -q "^H100-SXM-80GB *USD *12 *5760\.00 *989\.5 *5699520\.0 *68\.0 *12 *0\.40 *\$11520\.00 *\$0\.002972 *\$0\.002378 *- *-$" <<<"$OUT"'
check "the table's shape" \
	'grep -q "^H100-SXM-80GB GPU-hours by weekday (Mon-Sun): 768\.00 960\.00 960\.00 768\.00 768\.00 768\.00 768\.00$" <<<"$OUT"'

run zh advise --offline
check "in Chinese: the headers and the saving" \
	'[ "$RC" -eq 0 ] && grep -q "节省" <<<"$OUT" && grep -q "^USD *\$11520\.00 *\$1728\.00$" <<<"$OUT" && grep -q "算力资产负债表" <<<"$OUT"'

# Another discount: 25 % for a month, 4 x 720 x 2.00 x 0.75 = 4320.00 on the term, saving
# 11520.00 - 4320.00 - 5760.00 = 1440.00; break-even 730 x 0.75 = 547.5 h.
expect_ok g config set advise.term_1mo 25
expect_ok g advise --offline -o json
# figure: advise-plan figure: advise-break-even
check "advise.term_1mo is read" \
	'jq -e "(.plans[0] | .term_cost == 4320 and .saving == 1440) and .terms[0].break_even_hours_month == 547.5 and .terms[0].discount_pct == 25" <<<"$OUT" >/dev/null'
expect_rc 2 g config set advise.term_3mo 100
expect_ok g config unset advise.term_1mo

# Asking the simulator: the cheapest equivalent on-demand H100 per TFLOP-hour is
# sim:o-000357, 8 x H100-SXM-80GB at 14.56/h: 14.56 / (8 x 989.5) = 0.001839 a TFLOP-hour
# (offers' price_per_tflop_hour), at the 85 % target 0.001839 / 0.85 = 0.002164.
expect_ok g offers gpu=h100 type=on-demand --limit 0 -o json
check "the offer is the cheapest per TFLOP-hour" \
	'jq -e "sort_by(.price_per_tflop_hour) | .[0] | .id == \"sim:o-000357\" and .price_per_tflop_hour == 0.001839" <<<"$OUT" >/dev/null'
expect_ok g advise -o json
# figure: advise-offer
check "the cheapest comparable offer now ($(jq -c .balance[0] <<<"$OUT"))" \
	'jq -e ".balance[0] | .offer_id == \"sim:o-000357\" and .offer_per_tflop_hour_at_target == 0.002164 and .offer_converted == false" <<<"$OUT" >/dev/null'
pass
