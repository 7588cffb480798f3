#!/usr/bin/env bash
# metrics --since over the per-GPU hourly roll-up (samples_gpu_hour) on a database made by
# the old schema (tests/data/history/schema-c494bf8.sql: no roll-up at all): the first
# command fills it from the minute rows once; a range of more than two days is shown in
# hourly buckets by default, read from it; the figures, hand-computed, are the minute
# rows' own, with a gap and unknown figures (unknown stays null, never 0); and each hour
# says what its two half-hours (read from the minute rows) say.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z, T0
T0=1796119200

id=$(g launch sim:o-000075 --label hourly)
check "launched" '[[ $id == sim:i-* ]]'
sqlite3 "$DB" "DROP TABLE IF EXISTS sample_series; DROP TABLE IF EXISTS samples;
	DROP TABLE IF EXISTS samples_minute; DROP TABLE IF EXISTS samples_hour;
	DROP TABLE IF EXISTS samples_gpu_hour; PRAGMA user_version = 0;" || fail "drop the new tables"
sqlite3 "$DB" <"$SRCDIR/tests/data/history/schema-c494bf8.sql" || fail "old schema"
# Minute rows of one GPU (utilisation, temperature, power known to some sample: seen 13):
#   T0+1h: minutes 0..29 at m..m+1 % (mean m + 0.5), 200 W; minutes 30..59 missing;
#   T0+2h: utilisation unknown in every minute, 300 W;
#   T0+3h: 40..60 % (mean 50), power unknown.
sqlite3 "$DB" "INSERT INTO sample_series(id, instance_id, gpu, seen) VALUES(1, '$id', 0, 13);
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 29)
	INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean,
		util_max, power_min, power_mean, power_max, temp_min, temp_mean, temp_max)
	SELECT 1, $T0 + 3600 + k * 60, 6, 60, 0, k, k + 0.5, k + 1, 200, 200, 200, 60, 60, 60 FROM m;
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 59)
	INSERT INTO samples_minute(series, minute, n, secs, source, power_min, power_mean,
		power_max, temp_min, temp_mean, temp_max)
	SELECT 1, $T0 + 7200 + k * 60, 6, 60, 0, 300, 300, 300, 61, 61, 61 FROM m;
	WITH RECURSIVE m(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM m WHERE k < 59)
	INSERT INTO samples_minute(series, minute, n, secs, source, util_min, util_mean,
		util_max, temp_min, temp_mean, temp_max)
	SELECT 1, $T0 + 10800 + k * 60, 6, 60, 0, 40, 50, 60, 62, 62, 62 FROM m;" ||
	fail "minute rows"

expect_ok g sim advance 4h		# now T0+4h
expect_ok g metrics "$id" --since 3d -o json
check "the first command made the roll-up: one row per GPU and hour" \
	'[ "$(sqlite3 "$DB" "SELECT count(*), sum(n) FROM samples_gpu_hour")" = "3|900" ]'
check "three days: hourly buckets by default, three of them ($OUT)" \
	'jq -e "length == 3 and all(.[]; .step_s == 3600)" <<<"$OUT" >/dev/null'
check "T0+1h: half an hour of minutes, mean 15 (0.5..29.5), 0..30 %, 200 W" \
	'jq -e ".[0] | .time == \"2026-12-01T11:00:00Z\" and .samples == 180 and .util_pct == 15 and .util_min_pct == 0 and .util_max_pct == 30 and .power_w == 200 and .temp_c == 60" <<<"$OUT" >/dev/null'
check "T0+2h: utilisation unknown (null, not 0), 300 W" \
	'jq -e ".[1] | .samples == 360 and .util_pct == null and .util_min_pct == null and .util_max_pct == null and .power_w == 300" <<<"$OUT" >/dev/null'
check "T0+3h: 50 % (40..60), power unknown" \
	'jq -e ".[2] | .util_pct == 50 and .util_min_pct == 40 and .util_max_pct == 60 and .power_w == null and .power_max_w == null" <<<"$OUT" >/dev/null'

# The same hours from the minute table: half-hour buckets, added up by hand (jq).
expect_ok g metrics "$id" --since 3d --step 30m -o json
halves=$OUT
expect_ok g metrics "$id" --since 3d --step 1h -o json
hours=$OUT
sum='group_by(.time[0:13]) | map({samples: (map(.samples) | add),
	util_min_pct: ([.[].util_min_pct | values] | min), util_max_pct: ([.[].util_max_pct | values] | max),
	power_max_w: ([.[].power_max_w | values] | max), temp_max_c: ([.[].temp_max_c | values] | max)})'
pick='map({samples, util_min_pct, util_max_pct, power_max_w, temp_max_c})'
check "each hour is its two half-hours of minute rows" \
	'[ "$(jq -c "$sum" <<<"$halves")" = "$(jq -c "$pick" <<<"$hours")" ]'
# A range that cuts an hour: its minutes from the minute table, the rest from the roll-up.
expect_ok g metrics "$id" --since 2026-12-01T11:20 --until 2026-12-01T13:30 --step 1h -o json
check "cut hours: minutes 20..29 of T0+1h (mean 25), T0+2h whole, half of T0+3h" \
	'jq -e "length == 3 and .[0].samples == 60 and .[0].util_pct == 25 and .[1].samples == 360 and .[2].samples == 180" <<<"$OUT" >/dev/null'
pass
