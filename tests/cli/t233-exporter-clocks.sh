#!/bin/bash
# The exporter counts each instance's sample age on that instance's clock: with the
# simulator's clock an hour ahead (`sim advance 1h`), a vast instance (vast pointed at
# `gpurent sim serve`, on the wall clock) sampled a moment ago is seconds old, not an hour,
# and the simulated one's sample is seconds old on the simulator's clock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/exporter.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers sim,vast
expect_ok g -p vast offers type=on-demand -o ids -n 1
expect_ok g launch "$OUT" --env SIM_WORKLOAD=training
vast_id=$OUT
expect_ok g -p sim offers type=on-demand -o ids -n 1
expect_ok g launch "$OUT" --env SIM_WORKLOAD=training
sim_id=$OUT
expect_ok serve_g vast sim advance 10m
expect_ok g sim advance 10m
expect_ok g sim advance 1h

age_of() {
	sed -n "s/^gpurent_sample_age_seconds{.*instance_id=\"$1\".*} \([0-9]*\)$/\1/p" <<<"$OUT"
}
start_exporter
for ((i = 0; i < 300; i++)); do
	scrape
	[ -n "$(age_of "$vast_id")" ] && [ -n "$(age_of "$sim_id")" ] && break
	sleep 0.1
done
check "both sampled: $(grep ^gpurent_sample_age "$TMP/scrape")" '[ -n "$(age_of "$vast_id")" ] && [ -n "$(age_of "$sim_id")" ]'
check "the vast instance's sample is seconds old on the wall clock ($(age_of "$vast_id"))" \
	'[ "$(age_of "$vast_id")" -lt 60 ]'
check "the simulated one's on the simulator's ($(age_of "$sim_id"))" '[ "$(age_of "$sim_id")" -lt 60 ]'
pass
