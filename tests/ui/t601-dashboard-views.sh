#!/bin/bash
# t601: every view shows its rows, resizing keeps the layout (and says when the terminal
# is too small), q and SIGTERM both give the terminal back.
. "$(dirname "$0")/lib.sh"

# On demand: the cheapest offer is often interruptible, and on the clock that runs here (60x)
# a slow run (ASan, a loaded machine) let the market outbid it, so it was stopped before the
# instances view was looked at.
inst=$(launch_fresh type=on-demand -- -o ids --wait --timeout 120 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac

start_dash 120 40
wait_for '^  sim:o-[0-9]+' 50 && ok "offers listed" || fail "offers: $(screen)"
wait_for 'of [0-9]+ offers' 10 && ok "offer count in the tabs" || fail "count: $(row 1)"
row 0 | grep -q 'burn \$0\.[0-9]*/h' && ok "header shows the burn rate" || fail "header: $(row 0)"
row 39 | grep -q 'q quit' && ok "key hints at the bottom" || fail "keys: $(row 39)"

keys 2
wait_for "^  $inst +sim +- +running" 50 && ok "instances view lists $inst" ||
    fail "instances: $(screen)"
keys Enter
wait_for '^ OFFER +sim:o-' 20 && ok "Enter shows the instance's details" || fail "details: $(screen)"
keys q
wait_for "^  $inst" 20 && ok "q closes the details" || fail "close: $(screen)"
keys m
wait_for '^ GPU 0' 50 && ok "m opens its metrics" || fail "metrics: $(screen)"
wait_for '^  util .* [0-9]+ % ' 50 && ok "utilisation graph and value" || fail "util: $(screen)"
wait_for '^  power .* W ' 10 && ok "power graph and value" || fail "power: $(screen)"
wait_for '[▁▂▃▄▅▆▇█]' 50 && ok "sparkline drawn" || fail "sparkline: $(screen)"

keys 4
wait_for '^  Burn rate +\$0\.[0-9]+ per hour' 50 && ok "costs: burn rate" || fail "costs: $(screen)"
wait_for '^  sim +\$[0-9.]+ +\$0\.[0-9]+' 20 && ok "costs by provider" || fail "by provider: $(screen)"
keys Tab
wait_for '^ TIME +LEVEL +EVENT' 20 && ok "Tab moves on to events" || fail "tab: $(screen)"
keys Tab
wait_for 'no cluster among the providers shown' 20 && ok "Tab moves on to cluster" ||
    fail "tab: $(screen)"
keys Tab
wait_for 'no managed jobs' 20 && ok "Tab moves on to jobs" || fail "tab: $(screen)"
keys Tab
wait_for '^  sim:o-' 20 && ok "Tab wraps to offers" || fail "tab: $(screen)"
keys : c o s t s Enter
wait_for '^  Burn rate' 20 && ok ":costs switches view" || fail ":costs: $(screen)"
keys : b o g u s Enter
wait_for "unknown command 'bogus'" 20 && ok ":bogus is refused in place" || fail "bogus: $(row 38)"
keys Escape 1 '?'
wait_for '^ +L +launch the offer' 20 && ok "? lists the keys" || fail "help: $(screen)"
keys q

# Resize: the layout follows, down to 80x24; below, a message. tmux keeps the old screen's
# rows (cut, or moved up) until the dashboard redraws, so each check waits for the redrawn
# layout itself (header on the first row, key hints on the new last one), never for a fixed
# time: a slow (sanitized, loaded) redraw only takes longer.
redrawn() { row 0 | grep -q burn && row 1 | grep -q '^ 1 Offers' && row "$1" | grep -q 'q quit'; }
tm resize-window -t ui -x 80 -y 24
wait_until 'redrawn 23' 50
[ "$(row 23 | grep -c 'q quit')" = 1 ] && row 0 | grep -q 'burn' && row 1 | grep -q '1 Offers' &&
    ok "80x24 keeps header, tabs and keys" || fail "80x24: $(screen)"
row 2 | grep -q ' GPU ' && ! row 2 | grep -q PROVIDER &&
    ok "80x24 keeps GPU, drops PROVIDER (the id says it)" || fail "columns at 80: $(row 2)"
wide=0
while IFS= read -r l; do [ ${#l} -le 80 ] || wide=$((wide + 1)); done < <(screen)
[ $wide = 0 ] && ok "no line wider than 80" || fail "$wide lines wider than 80: $(screen)"
tm resize-window -t ui -x 70 -y 20
wait_for 'terminal too small: 70x20.*80x24' 30 && ok "too small says so" || fail "small: $(screen)"
tm resize-window -t ui -x 120 -y 40
wait_until 'redrawn 39' 50 &&
    ok "back to full size" || fail "regrow: $(screen)"

keys q
wait_for 'DASH-EXIT-0' 50 && ok "q quits with status 0" || fail "quit: $(screen)"
screen | grep -q 'TTY-OK' && ok "terminal modes restored" || fail "tty: $(screen)"
screen | grep -q '^ burn ' && fail "dashboard still on screen" || ok "screen restored"

# SIGTERM: the terminal comes back too.
tm kill-session -t ui 2>/dev/null
start_dash 100 30 --view instances
wait_for "^  $inst" 50 || fail "instances at start: $(screen)"
kill -TERM "$(cat "$T/pid")"
wait_for 'DASH-EXIT-130' 50 && ok "SIGTERM ends it (130)" || fail "sigterm: $(screen)"
screen | grep -q 'TTY-OK' && ok "terminal restored after SIGTERM" || fail "tty after TERM"
finish
