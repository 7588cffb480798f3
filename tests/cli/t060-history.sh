#!/usr/bin/env bash
# Sample history on the simulator's clock: every `metrics` sample is kept; after 24 h the
# raw samples become one-minute aggregates whose min/mean/max are those of the raw samples
# they replace; after 30 days they are gone. --since/--until/--step and their errors.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z

id=$(g launch sim:o-000075 --label hist)
expect_ok g sim advance 2m		# booted: running from 10:01:00

# Three minutes of 10 s samples, 10:02:00 .. 10:04:50.
for i in $(seq 1 18); do
	g metrics "$id" -o json >/dev/null || fail "metrics sample $i"
	g sim advance 10s >/dev/null
done
expect_ok g metrics "$id" --since 1h -o json
raw=$OUT
check "18 raw samples kept, oldest first" \
	'jq -e "length == 18 and .[0].time == \"2026-12-01T10:02:00Z\" and .[17].time == \"2026-12-01T10:04:50Z\" and all(.[]; .step_s == 0 and .samples == 1)" <<<"$raw" >/dev/null'
check "a raw sample's mean, min and max are its value" \
	'jq -e "all(.[]; .util_pct == .util_min_pct and .util_pct == .util_max_pct and .power_w == .power_max_w)" <<<"$raw" >/dev/null'
check "what the API does not report is null, not 0" \
	'jq -e "all(.[]; .clock_sm_mhz == null and .xid == null and .uuid == null and .source == \"api\")" <<<"$raw" >/dev/null'
check "the samples are those metrics printed" \
	'[ "$(jq -c "[.[].util_pct]" <<<"$raw")" != "[]" ]'

# The same range in minute buckets, before any compaction: min/mean/max per minute.
expected=$(jq -c 'group_by(.time[0:16]) | map({t: (.[0].time[0:16] + ":00Z"), n: length,
	min: (map(.util_pct) | min), max: (map(.util_pct) | max),
	mean: ((map(.util_pct) | add) / length * 10 | round / 10),
	pmax: (map(.power_w) | max), tmax: (map(.temp_c) | max)})' <<<"$raw")
actual_of() {
	jq -c 'map({t: .time, n: .samples, min: .util_min_pct, max: .util_max_pct,
		mean: (.util_pct * 10 | round / 10), pmax: .power_max_w, tmax: .temp_max_c})' <<<"$1"
}
expect_ok g metrics "$id" --since 1h --step 1m -o json
check "minute buckets from raw samples" '[ "$(actual_of "$OUT")" = "$expected" ]'
check "three minutes of six samples" '[ "$(jq -c "[.[].samples]" <<<"$OUT")" = "[6,6,6]" ]'

# A day later the raw samples are gone from the database, their minutes remain.
expect_ok g sim advance 25h
expect_ok g metrics "$id" --since 2026-12-01T10:00 --until 2026-12-01T10:10 --step raw -o json
check "no raw samples older than 24 h" 'jq -e "length == 0" <<<"$OUT" >/dev/null'
check "compacted in the database" \
	'[ "$(sqlite3 "$DB" "SELECT count(*) FROM samples; SELECT count(*) FROM samples_minute;" | tr "\n" " ")" = "0 3 " ]'
expect_ok g metrics "$id" --since 2026-12-01T10:00 --until 2026-12-01T10:10 --step 1m -o json
check "the minute aggregates match the raw samples they replaced" '[ "$(actual_of "$OUT")" = "$expected" ]'
expect_ok g metrics "$id" --since 26h -o json
check "--since beyond raw retention picks minute buckets (auto step 5 min here)" \
	'jq -e "length == 1 and .[0].step_s == 300 and .[0].samples == 18" <<<"$OUT" >/dev/null'
check "a bucket's mean is the mean of its samples" \
	'[ "$(jq ".[0].util_pct" <<<"$OUT")" = "$(jq "map(.util_pct) | add / length * 10 | round / 10" <<<"$raw")" ]'

# New samples now sit beside the old minutes; one query spans both.
g metrics "$id" >/dev/null || fail "sample after a day"
expect_ok g metrics "$id" --since 2d --step 1m -o json
check "minutes and today's raw sample in one history" \
	'jq -e "length == 4 and .[3].samples == 1 and .[0].time == \"2026-12-01T10:02:00Z\"" <<<"$OUT" >/dev/null'

# Table and csv: units in the headers, one line per bucket.
expect_ok g metrics "$id" --since 2d --step 1m
check "table headers carry units" '[[ $OUT == *"UTIL %"*"MEM MiB"*"TEMP °C"*"POWER W"* ]]'
check "table: header and four rows" '[ "$(wc -l <<<"$OUT")" -eq 5 ]'
expect_ok g metrics "$id" --since 2d --step 1m -o csv
check "csv header" '[[ $(head -1 <<<"$OUT") == instance_id,gpu,time,step_s,samples,util_pct,* ]]'
check "csv rows" '[ "$(wc -l <<<"$OUT")" -eq 5 ]'

# Thirty days after the last samples, their minutes are dropped too.
expect_ok g sim advance 31d
expect_ok g metrics "$id" --since 40d --step 1h -o json
check "nothing older than 30 days" 'jq -e "length == 0" <<<"$OUT" >/dev/null'
check "the database holds no sample rows at all" \
	'[ "$(sqlite3 "$DB" "SELECT (SELECT count(*) FROM samples) + (SELECT count(*) FROM samples_minute) + (SELECT count(*) FROM sample_series);")" = 0 ]'

# Usage errors: exit 2 with a reason.
expect_rc 2 g metrics "$id" --since yesterday
check "bad --since explained" '[[ $ERR == *"--since needs"* ]]'
expect_rc 2 g metrics "$id" --since 2026-02-30T10:00
expect_rc 2 g metrics "$id" --since 1h --until 2h
check "until before since" '[[ $ERR == *"--until must be later"* ]]'
expect_rc 2 g metrics "$id" --since 1h --step 90s
expect_rc 2 g metrics "$id" --since 1h --follow
expect_rc 2 g metrics "$id" --until 1h
expect_rc 3 g metrics nosuch:1 --since 1h
pass
