#!/bin/bash
# The costs view's audit line over an instance no sample ever saw: GPU use, idle time and
# waste are unknown, said so, not "idle 0%, waste $0.00".
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790777600

id=$("$G" -o ids launch --gpu h100 --count 1 --label unseen 2>/dev/null)
case $id in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" sim advance 2h >/dev/null || { echo "advance" >&2; exit 1; }

start_dash 140 40
keys 4
wait_for "^  Last 7 days +no samples: GPU use, idle time and waste unknown " 300 &&
	ok "the audit line says idle time and waste are unknown" || fail "audit line: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 150 || fail "quit: $(screen)"
finish
