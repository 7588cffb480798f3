#!/bin/bash
# t961 (issue 31): GPURENT_UI_TRACE says the costs lane's time on each answer ("costs MS"),
# which bench/team-store.sh reads to time the dashboard over each state driver.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1780000000 GPURENT_UI_TRACE=$T/trace
costs() { grep -cE '^costs [0-9]+\.[0-9]{3}$' "$GPURENT_UI_TRACE" 2>/dev/null; }

start_dash 120 30 --view costs --refresh 1
wait_until '[ "$(costs)" -ge 2 ]' 300 &&
	ok "a costs line per answer: $(grep '^costs' "$T/trace" | head -2 | paste -sd,)" ||
	fail "no costs lines in the trace: $(head -5 "$T/trace" 2>&1)"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
finish
