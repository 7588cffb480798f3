#!/bin/bash
# Every interval is checked the same way, on every path: a duration from 1s to 1d. Out of
# range (2147483648 seconds once wrapped to a negative int and sampled every second), zero
# or not a duration, it is a usage error (status 2) that names the range: metrics --follow
# --interval, watch --interval, exporter --interval, dashboard --refresh, and the config
# keys that hold an interval (watch.interval, dashboard.*_interval).
. "$(dirname "$0")/lib.sh"

id=$(g launch "$(g -o ids offers gpus=1 type=on-demand | head -1)" --env SIM_WORKLOAD=idle) ||
	fail "launch"
expect_ok g sim advance 2m

range="needs a duration from 1s to 1d (such as 30s or 5m)"
for bad in 2147483648 86401 2d 0 -5 soon; do
	expect_rc 2 g metrics "$id" --follow --count 1 --interval "$bad"
	check "metrics --interval $bad: $ERR" '[[ $ERR == *"--interval $range, not '\''$bad'\''"* ]]'
	expect_rc 2 g watch --once --dry-run --interval "$bad"
	check "watch --interval $bad: $ERR" '[[ $ERR == *"--interval $range, not '\''$bad'\''"* ]]'
	expect_rc 2 timeout 20 "$GPURENT" exporter --listen 127.0.0.1:0 --interval "$bad"
	check "exporter --interval $bad: $ERR" '[[ $ERR == *"--interval $range, not '\''$bad'\''"* ]]'
	expect_rc 2 timeout 20 "$GPURENT" dashboard --refresh "$bad" </dev/null
	check "dashboard --refresh $bad: $ERR" '[[ $ERR == *"--refresh $range, not '\''$bad'\''"* ]]'
	for key in watch.interval dashboard.offers_interval dashboard.instances_interval \
		dashboard.metrics_interval; do
		expect_rc 2 g config set "$key" "$bad"
		check "config set $key $bad: $ERR" '[[ $ERR == *"'\''$key'\'' $range, not '\''$bad'\''"* ]]'
	done
done
check "nothing was set" '[ -z "$(g config get watch.interval 2>/dev/null | grep -v "^60s$")" ]'

# The ends of the range are accepted.
expect_ok g metrics "$id" --follow --count 1 --interval 1d
check "a day: one sample: $OUT" '[[ $OUT == *"$id"* ]]'
expect_ok g metrics "$id" --follow --count 1 --interval 1
expect_ok g watch --once --dry-run --interval 86400
expect_ok g config set watch.interval 1d
expect_ok g config set dashboard.metrics_interval 1s
expect_ok g config get watch.interval
check "kept as given: $OUT" '[ "$OUT" = 1d ]'
pass
