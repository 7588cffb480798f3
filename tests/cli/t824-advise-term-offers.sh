#!/bin/bash
# Issue 29.1 and 29.2: advise prices each term from the providers' term offers of the GPU
# (the simulator sells an H100 for a month at 20 % off and for three at 30 %), and only where
# none is offered (a GPU billed in yuan, which the simulator does not sell) from the discounts
# the config assumes, saying which.
. "$(dirname "$0")/lib.sh"
NOW=1790812800			# 2026-10-01T00:00:00Z
S=$((NOW - 30 * 86400))
export GPURENT_SIM_TIME=$NOW

# The fixture, as the ledger writes it: sim:s-1..4, H100-SXM-80GB at $2.00/h from S to NOW
# (720 h each), sim:y-1 the same at ¥12.60/h, one GPU each (a sample says so).
expect_ok g audit --offline -o json	# makes the history's tables
sqlite3 "$DB" "
	WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 4)
	INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts,
		currency)
	SELECT 'sim:s-' || i, 'sim', 'base', 'H100-SXM-80GB', 0, 2000000, $S, $NOW, 'USD' FROM k;
	INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts, end_ts,
		currency)
	VALUES('sim:y-1', 'sim', 'yuan', 'H100-SXM-80GB', 0, 12600000, $S, $NOW, 'CNY');
	INSERT INTO sample_series(instance_id, gpu) SELECT DISTINCT instance_id, 0 FROM ledger;
	INSERT INTO samples(series, at, source, util, power)
		SELECT id, $S + 9 * 3600, 0, 68, 500 FROM sample_series;" || fail "insert the fixture"
expect_ok g config set advise.term_1mo 10
expect_ok g config set advise.term_3mo 15

# Dollars: 4 GPUs all the time, the base 4, paid 4 x 720 x 2.00 = 5760.00, nothing above it.
#   the sim's month, 20 % off: 5760.00 x 0.80 = 4608.00, saving 1152.00, break-even
#   730 x 0.80 = 584 h a month; three months, 30 %: 4032.00, saving 1728.00, 511 h.
# Yuan: no term offer in yuan: assumed 10 %: 720 x 12.60 = 9072.00, x 0.90 = 8164.80,
#   saving 907.20, break-even 657 h; 15 %: 7711.20, saving 1360.80.
expect_ok g advise -o json
plan() {
	jq -c --arg c "$1" --arg t "$2" '.plans[] | select(.gpu == "H100-SXM-80GB" and .currency == $c and .term == $t) | [.discount_pct, .break_even_hours_month, .term_cost, .saving, (.term_offer // "assumed" | sub("^sim:o-[0-9]+"; "sim:o-N"))]' <<<"$OUT"
}
# figure: advise-term-offer
check "USD 1mo from the sim's term offer: 20 %, 584 h, 4608.00, saving 1152.00 ($(plan USD 1mo))" \
	'[ "$(plan USD 1mo)" = "[20,584,4608,1152,\"sim:o-Nt1\"]" ]'
check "USD 3mo: 30 %, 511 h, 4032.00, saving 1728.00 ($(plan USD 3mo))" \
	'[ "$(plan USD 3mo)" = "[30,511,4032,1728,\"sim:o-Nt3\"]" ]'
check "CNY 1mo assumed: 10 %, 657 h, ¥8164.80, saving ¥907.20 ($(plan CNY 1mo))" \
	'[ "$(plan CNY 1mo)" = "[10,657,8164.8,907.2,\"assumed\"]" ]'
check "CNY 3mo assumed: 15 %, ¥7711.20, saving ¥1360.80 ($(plan CNY 3mo))" \
	'[ "$(jq -c ".[2:4]" <<<"$(plan CNY 3mo)")" = "[7711.2,1360.8]" ]'
expect_ok g advise
check "the table names the term offer a plan is priced from" \
	'grep -q "^H100-SXM-80GB USD 3mo: the term offer sim:o-[0-9]*t3, 30 % off, break-even 511\.0 h a month$" <<<"$OUT"'
expect_ok g advise --offline -o json
check "offline, every term is assumed ($(plan USD 1mo))" \
	'[ "$(plan USD 1mo)" = "[10,657,5184,576,\"assumed\"]" ]'
pass
