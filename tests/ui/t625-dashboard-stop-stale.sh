#!/bin/bash
# t625: s asks first, as L and D do, and says what stopping saves and what the disk still
# bills; the destroy dialog of a stopping instance says what destroying saves as `destroy`
# computes it (its disk's storage, not $0.000); the metrics of an instance that stopped say
# how old they are; ? explains the key line's "* idle". On the simulator's frozen clock,
# moved only by `sim advance`, so "stopping" lasts as long as the test needs.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z

offer=$("$G" -o ids offers type=on-demand --limit 1 2>/dev/null)
inst=$("$G" launch "$offer" 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
"$G" sim advance 2m >/dev/null || { echo "sim advance failed" >&2; exit 1; }
# Hand-computed from what the provider lists: the price to 3 decimals, storage to 3 and 4.
json=$("$G" -o json ls 2>/dev/null)
price=$(jq -r '.[0].price_hour' <<<"$json")
storage=$(jq -r '.[0].storage_hour' <<<"$json")
price3=$(printf '$%.3f' "$price")
storage3=$(printf '$%.3f' "$storage")
storage4=$(printf '$%.4f' "$storage")
awk "BEGIN { exit !($storage > 0.0005) }" || { echo "no storage price: $json" >&2; exit 1; }
state() { "$G" -o json ls 2>/dev/null | jq -r '.[0].state'; }

start_dash 140 60 --view instances
wait_for "^  $inst .*running" 50 || fail "no running instance: $(screen)"
# Its metrics, seen while it runs.
keys m
wait_for 'util .* [0-9]+ %' 50 || fail "no metrics while running: $(screen)"
screen | grep -q 'last sample' && fail "a running instance's metrics called old" ||
	ok "a running instance's metrics are not called old"
keys 2
wait_for "^  $inst .*running" 20 || fail "back to instances: $(screen)"
keys s
wait_for 'Stop\?' 20 && ok "s asks first" || fail "no dialog: $(screen)"
screen | grep -Fq "Its GPUs stop billing $price3 per hour;" &&
	screen | grep -Fq "its disk still bills $storage4 per hour." &&
	ok "it says what stopping saves ($price3/h) and what the disk still bills ($storage4/h)" ||
	fail "figures: $(screen)"
keys n
wait_for 'cancelled; nothing changed' 20 && ok "n cancels" || fail "cancel: $(screen)"
[ "$(state)" = running ] && ok "still running" || fail "state: $(state)"
keys s
wait_for 'Stop\?' 20 || fail "no dialog again"
keys y
wait_until '[ "$(state)" = stopping ]' 50 && ok "y stops it" || fail "state: $(state)"
keys r
wait_for "^  $inst .*stopping" 50 || fail "list: $(screen)"

keys D
wait_for 'Destroy\?' 20 || fail "no destroy dialog: $(screen)"
screen | grep -Fq "It saves $storage3 per hour" &&
	ok "destroying a stopping instance saves its disk's $storage3/h" || fail "saves: $(screen)"
keys n
wait_for 'cancelled' 20 || fail "cancel: $(screen)"

# Stopped: the metrics view keeps the last figures, says how old, and dims them.
"$G" sim advance 1m >/dev/null || fail "sim advance"
keys r
wait_for "^  $inst .*stopped" 50 || fail "stopped: $(screen)"
keys m
wait_for 'GPU 0' 50 || fail "metrics: $(screen)"
wait_for 'GPU 0 +last sample [0-9]+[smh].* ago, before the instance was stopped' 50 &&
	ok "the metrics of a stopped instance say they are old" || fail "age: $(screen)"
screen | grep -Eq 'util .* [0-9]+ %' && ok "the last figures stay" || fail "figures: $(screen)"

# ? lists what the key line's "* idle" means.
keys 2
wait_for '\* idle' 20 || fail "key line: $(screen)"
keys '?'
wait_for 'Keys' 20 || fail "no help: $(screen)"
wait_for '\* idle +rows marked \* \(and highlighted\)' 20 && ok "? explains * idle" ||
	fail "help: $(screen)"
keys q
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
