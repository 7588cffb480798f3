#!/bin/bash
# t603: launch and destroy from the dashboard, each behind a confirmation that states the
# money; "no" changes nothing; --readonly refuses both.
. "$(dirname "$0")/lib.sh"

live() { "$G" -o json ls 2>/dev/null | jq '[.[] | select(.state != "destroyed")] | length'; }

start_dash 120 40 --readonly
wait_for '^  sim:o-' 50 || fail "no offers: $(screen)"
keys L
wait_for 'read-only' 20 && ok "--readonly refuses L" || fail "readonly: $(row 38)"
screen | grep -q 'Launch?' && fail "a dialog opened in read-only mode" || ok "no dialog"
row 39 | grep -q 'read-only' && ok "the key line says read-only" || fail "keys: $(row 39)"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
tm kill-session -t ui

start_dash 120 40
wait_for '^  sim:o-' 50 || fail "no offers: $(screen)"
# An on-demand offer: an interruptible one may be outbid (and stopped) by the simulated
# market, which moves a minute a second here, before the test sees it running.
keys / 'type=on-demand' Enter
wait_gone 'interruptible' 20 || fail "filter: $(screen)"
keys L
wait_for 'Launch\?' 20 && ok "L asks first" || fail "no dialog: $(screen)"
screen | grep -q 'per hour' && screen | grep -q 'per day' && ok "it states \$/hour and \$/day" ||
    fail "prices: $(screen)"
keys n
wait_for 'cancelled; nothing changed' 20 && ok "n cancels" || fail "cancel: $(row 38)"
[ "$(live)" = 0 ] && ok "nothing rented" || fail "rented anyway"

keys L
wait_for 'Launch\?' 20 || fail "no dialog again"
keys y
wait_for 'launched sim:i-[0-9]+ at \$[0-9.]+/hour' 50 && ok "y launches" || fail "launch: $(row 38)"
inst=$(row 38 | sed -n 's/.*launched \(sim:i-[0-9]*\).*/\1/p')
[ "$(live)" = 1 ] && ok "one instance exists" || fail "instances: $(live)"
keys 2
wait_for "^  $inst " 50 && ok "the instance list shows $inst" || fail "list: $(screen)"
wait_for "^  $inst .*running" 100 && ok "it comes up" || fail "running: $(screen)"

keys D
wait_for 'Destroy\?' 20 && ok "D asks first" || fail "no dialog: $(screen)"
screen | grep -q 'cannot be undone' && ok "it says what is lost" || fail "loss: $(screen)"
screen | grep -q 'saves \$0\.[0-9]* per hour' && ok "it says what it saves" || fail "saves: $(screen)"
keys Escape
wait_for 'cancelled' 20 && ok "Esc cancels" || fail "esc: $(row 38)"
[ "$(live)" = 1 ] && ok "still there" || fail "destroyed anyway"
keys D
wait_for 'Destroy\?' 20 || fail "no dialog again"
keys y
wait_for "$inst: destroying" 50 && ok "y destroys" || fail "destroy: $(row 38)"
n=0
while [ "$(live)" != 0 ] && [ $n -lt 50 ]; do sleep 0.2; n=$((n + 1)); done
[ "$(live)" = 0 ] && ok "the provider has no live instance" || fail "still live: $(live)"
wait_for "^  $inst .*destroy|no instances" 100 && ok "the list follows" || fail "list: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
