#!/bin/bash
# t621: the dashboard's start admits a stopped instance as a launch is admitted (issue 24,
# item 2): with budget.day too small for it, S is refused with the launch's message and the
# instance stays stopped.
. "$(dirname "$0")/lib.sh"

inst=$("$G" -o ids launch --wait --timeout 120 --gpu h100 --count 1 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" stop --timeout 120 "$inst" >/dev/null || { echo "stop failed" >&2; exit 1; }
"$G" config set budget.day 0.01 >/dev/null || { echo "config set failed" >&2; exit 1; }

start_dash 140 40 --view instances
wait_for "^  $inst .*stopped" 50 || fail "list: $(screen)"
keys S
wait_for "$inst: refused by budget\.day: today's spend would reach \\\$[0-9.,]+ against a budget of \\\$0\.01" 50 &&
	ok "S refused by budget.day" || fail "start: $(screen)"
[ "$("$G" show "$inst" -o json | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p')" = stopped ] &&
	ok "still stopped" || fail "started anyway"
keys q
wait_for 'DASH-EXIT-0' 30 || fail "quit: $(screen)"
finish
