#!/bin/bash
# Issue 29.2: the costs view's advise line, the headline of `gpurent advise` over the last 30
# days, pinned to figures worked out by hand: sim:s-1, one H100 at $2.00/h, and sim:y-1, one
# at ¥12.60/h, each the whole 30 days (720 h), each sampled (one GPU). Each has a base of 1
# GPU all the time and nothing above it: paid $1440.00 and ¥9072.00; on the best term
# (three months, 30 % off as assumed) the base costs 0.70 of that, so it saves
# $1440.00 x 0.30 = $432.00 and ¥9072.00 x 0.30 = ¥2721.60, in their own currencies.
. "$(dirname "$0")/lib.sh"
NOW=1790812800				# 2026-10-01T00:00:00Z
S=$((NOW - 30 * 86400))
export GPURENT_SIM_TIME=$NOW		# a clock that stands still

"$G" audit --offline -o json >/dev/null || { echo "audit" >&2; exit 1; }
sqlite3 "$DB" "INSERT INTO ledger(instance_id, provider, label, gpu, kind, rate_hour, start_ts,
		end_ts, currency)
	VALUES('sim:s-1', 'sim', '', 'H100-SXM-80GB', 0, 2000000, $S, $NOW, 'USD'),
		('sim:y-1', 'sim', '', 'H100-SXM-80GB', 0, 12600000, $S, $NOW, 'CNY');
	INSERT INTO sample_series(instance_id, gpu) VALUES('sim:s-1', 0), ('sim:y-1', 0);
	INSERT INTO samples(series, at, source, util, power)
		SELECT id, $S + 3600, 0, 50, 400 FROM sample_series;" ||
	{ echo "the fixture" >&2; exit 1; }

start_dash 160 40
keys 4
# figure: advise-saving
wait_for "^  Last 30 days +the base on a term would save \\\$432\\.00, ¥2721\\.60 \\(discounts assumed" 300 &&
	ok "the advise line: \$432.00 and ¥2721.60" || fail "advise line: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
finish
