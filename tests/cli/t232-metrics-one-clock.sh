#!/usr/bin/env bash
# One instance, one clock: every sample of a simulated instance is stamped on the simulator's
# clock, whether the provider's API or the machine's nvidia-smi over ssh gave it (a one-shot
# sample, a --follow frame, an exporter round), so that its history reads in order and the
# newest sample is the newest taken. The exporter then serves the newest sample of each GPU
# whatever its source, and its age on that clock. The simulated clock here stands ahead of
# the wall clock (as after a `sim advance`), still but for `sim advance`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=4070908800	# 2099-01-01T00:00:00Z
start_sshd

id=$(g launch "$(g -o ids offers gpus=1 type=on-demand | head -1)" --env SIM_WORKLOAD=training) ||
	fail "launch"
expect_ok g sim advance 2m
nvidia_double h100x8.txt
expect_ok g metrics "$id" --source api -o json
check "the API's sample, at 00:02: $OUT" \
	'jq -e "length == 1 and .[0].source == \"api\" and .[0].time == \"2099-01-01T00:02:00Z\" and .[0].util_pct > 2" <<<"$OUT" >/dev/null'

expect_ok g sim advance 4m
expect_ok g metrics "$id" --source ssh -o json
check "nvidia-smi's samples on the same clock, at 00:06: $OUT" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .time == \"2099-01-01T00:06:00Z\")" <<<"$OUT" >/dev/null'
expect_ok g sim advance 1m
expect_ok g metrics "$id" --source ssh --follow --count 1 -o json
check "a --follow frame too, at 00:07: $OUT" \
	'[ "$(jq -s "length == 8 and all(.[]; .source == \"ssh\" and .time == \"2099-01-01T00:07:00Z\")" <<<"$OUT")" = true ]'

expect_ok g metrics "$id" --since 15m --step raw -o json
check "the history, in order on one clock: the API's at 00:02, then nvidia-smi's at 00:06 and 00:07: $OUT" \
	'jq -e "[.[] | select(.gpu == 0) | [.time, .source]] == [[\"2099-01-01T00:02:00Z\", \"api\"], [\"2099-01-01T00:06:00Z\", \"ssh\"], [\"2099-01-01T00:07:00Z\", \"ssh\"]]" <<<"$OUT" >/dev/null'

# The API's reading at 00:08, then the exporter samples over ssh at 00:09: it serves
# nvidia-smi's 2 % for GPU 0, a sample taken at 00:09, not the API's older reading.
expect_ok g sim advance 1m
expect_ok g metrics "$id" --source api
expect_ok g sim advance 1m
start_exporter
wait_scrape '^gpurent_sample_age_seconds'
for ((i = 0; i < 100; i++)); do
	grep -q -E '^DCGM_FI_DEV_GPU_UTIL\{[^}]*gpu="0"[^}]*\} 2$' <<<"$OUT" && break
	sleep 0.1
	scrape
done
check "the newest sample of GPU 0, nvidia-smi's 2 %: $(grep -E '^DCGM_FI_DEV_GPU_UTIL' <<<"$OUT")" \
	'grep -q -E "^DCGM_FI_DEV_GPU_UTIL\{[^}]*gpu=\"0\"[^}]*\} 2$" <<<"$OUT"'
# Its age: taken at 00:09 on a clock that stands still, plus the seconds since the exporter
# published it (the API's reading would be 60 s and more).
age=$(sed -n 's/^gpurent_sample_age_seconds{[^}]*} \([0-9]*\)$/\1/p' <<<"$OUT")
check "its age on the simulated clock, seconds: $age" '[ -n "$age" ] && [ "$age" -lt 30 ]'
expect_ok g metrics "$id" --since 15m --step raw -o json
check "the exporter's round at 00:09, over ssh: $OUT" \
	'jq -e "[.[] | select(.gpu == 0)] | .[-1].time == \"2099-01-01T00:09:00Z\" and .[-1].source == \"ssh\"" <<<"$OUT" >/dev/null'
pass
