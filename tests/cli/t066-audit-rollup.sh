#!/usr/bin/env bash
# audit over the hourly roll-up (samples_hour) on a database made by the old schema
# (tests/data/history/schema-c494bf8.sql: no samples_hour, no sample_series.vendor): the
# first command adds the vendor column and fills the roll-up from the minute rows once;
# audit's figures, hand-computed, come from whole hours and from the minutes of a cut hour;
# p95 is the whole part of the exact percentile; later compactions keep the roll-up.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z, T0
T0=1796119200

id=$(g launch sim:o-000075 --label rollup)
check "launched" '[[ $id == sim:i-* ]]'
# The old schema's sample tables, and three hours of minute rows T0+1h..T0+4h written
# into them: in minute m, mean m % 60 + 0.5, highest m % 60 + 1, 6 samples over 60 s, 200 W.
sqlite3 "$DB" "DROP TABLE IF EXISTS sample_series; DROP TABLE IF EXISTS samples;
	DROP TABLE IF EXISTS samples_minute; DROP TABLE IF EXISTS samples_hour;
	DROP TABLE IF EXISTS samples_gpu_hour; PRAGMA user_version = 0;" ||
	fail "drop the new tables"
sqlite3 "$DB" <"$SRCDIR/tests/data/history/schema-c494bf8.sql" || fail "old schema"
sqlite3 "$DB" "INSERT INTO sample_series(id, instance_id, gpu, seen) VALUES(1, '$id', 0, 129);
	WITH RECURSIVE m(k) AS (SELECT 60 UNION ALL SELECT k + 1 FROM m WHERE k < 239)
	INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean,
		util_max, power_min, power_mean, power_max)
	SELECT 1, $T0 + k * 60, 6, 60, 0, k % 60, k % 60 + 0.5, k % 60 + 1, 200, 200, 200
	FROM m;" || fail "minute rows"
check "no roll-up and no vendor column yet" \
	'! sqlite3 "$DB" "SELECT 1 FROM samples_hour" 2>/dev/null &&
	! sqlite3 "$DB" "SELECT vendor FROM sample_series" 2>/dev/null'

expect_ok g sim advance 4h		# now T0+4h
# The last three hours are whole hours: all from samples_hour. 180 minutes, each value
# 0.5..59.5 three times: mean 30; p95: 171 of 180 minutes, above 56.5 are nine (57.5..59.5
# x 3), so the exact percentile is 56.5 and audit says 56. 200 W x 3 h = 0.6 kWh. Idle
# (at or below the default 5 %): the minutes peaking at 1..5 %, five an hour, 15 of 180: 8.3 %.
expect_ok g audit --since 3h --offline -o json
row=$(jq -c --arg id "$id" '.rows[] | select(.key == $id)' <<<"$OUT")
check "the first command filled the roll-up: three hours" \
	'[ "$(sqlite3 "$DB" "SELECT count(*), sum(samples) FROM samples_hour")" = "3|1080" ]'
check "and added the vendor column, unknown for the old series" \
	'[ "$(sqlite3 "$DB" "SELECT count(*) FROM sample_series WHERE vendor IS NULL")" = 1 ]'
check "whole hours: mean 30, p95 56 (exact 56.5), 0.6 kWh, idle 15 of 180 minutes ($row)" \
	'jq -e ".util_mean_pct == 30 and .util_p95_pct == 56 and (.energy_kwh - 0.6 | fabs) < 0.0001 and .idle_pct == 8.3" <<<"$row" >/dev/null'
# From T0+1h30m: minutes 90..119 of a cut hour (30.5..59.5), then two whole hours: 150
# minutes, mean 4950 / 150 = 33; p95: 142.5 of 150, above 57.5 are six, above 56.5 nine:
# the exact percentile is 57.5, audit says 57. 200 W x 2.5 h = 0.5 kWh.
expect_ok g audit --since 150m --offline -o json
row=$(jq -c --arg id "$id" '.rows[] | select(.key == $id)' <<<"$OUT")
check "a cut hour at the start: mean 33, p95 57, 0.5 kWh ($row)" \
	'jq -e ".util_mean_pct == 33 and .util_p95_pct == 57 and (.energy_kwh - 0.5 | fabs) < 0.0001" <<<"$row" >/dev/null'
# Ninety minutes: the cut hour T0+2h..T0+3h gives its minutes 150..179, no whole hour is
# left out: T0+2h30m..T0+4h, minutes 150..239 (30.5..59.5, then a whole hour), mean 3150 / 90.
expect_ok g audit --since 90m --offline -o json
row=$(jq -c --arg id "$id" '.rows[] | select(.key == $id)' <<<"$OUT")
check "90 minutes: minutes 30.5..59.5 and one whole hour, mean 35 ($row)" \
	'jq -e ".util_mean_pct == 35" <<<"$row" >/dev/null'

# The history as metrics prints it names no vendor for the old series.
expect_ok g metrics "$id" --since 4h --step 1h -o json
check "metrics --since: the old rows, vendor null" \
	'jq -e "length == 3 and all(.[]; .vendor == null and .samples == 360)" <<<"$OUT" >/dev/null'

# A month later retention drops the minutes, and the roll-up with them.
expect_ok g sim advance 31d
expect_ok g metrics "$id" --since 40d --step 1h -o json
check "retention: no minute rows, no hourly rows" \
	'[ "$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM samples_minute) + (SELECT count(*) FROM samples_hour)")" = 0 ]'
pass
