#!/bin/bash
# t079: the dashboard's events view shows what gpurent watch did, newest first, coloured by
# level, and picks up new events as the watcher writes them.
. "$(dirname "$0")/lib.sh"

g() { "$G" "$@"; }
offer=$(g -o ids offers gpus=1 type=on-demand --limit 1 2>/dev/null)
inst=$(g launch "$offer" --env SIM_WORKLOAD=idle --label 'idle "box"' 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
g config set idle.after 10m >/dev/null
g sim advance 2m >/dev/null
g watch --once --interval 1h >/dev/null || fail "watch pass 1"
g sim advance 11m >/dev/null
g watch --once --interval 1h >/dev/null || fail "watch pass 2"

start_dash 140 30
keys 5
wait_for '^ TIME +LEVEL +EVENT +INSTANCE +LABEL +MESSAGE' 50 && ok "events view header" ||
    fail "header: $(screen)"
wait_for "action +stop-ordered +$inst +idle \"box\" +order 1 of 3" 50 &&
    ok "the order, with the label as given" || fail "order: $(screen)"
wait_for "info +idle +$inst .*GPU utilisation" 10 && ok "the observation behind it" ||
    fail "observation: $(screen)"
n_order=$(screen | grep -n 'stop-ordered' | cut -d: -f1)
n_idle=$(screen | grep -n ' idle  ' | head -1 | cut -d: -f1)
[ -n "$n_order" ] && [ -n "$n_idle" ] && [ "$n_order" -lt "$n_idle" ] &&
    ok "newest first" || fail "order of rows: $(screen)"
row 1 | grep -q ' 5 Events  *6 Cluster  *7 Jobs$' && ok "a fifth tab (the cluster's sixth and the jobs' seventh after it)" || fail "tabs: $(row 1)"

# The watcher verifies the stop while the dashboard is open: r brings it in.
g sim advance 1m >/dev/null
g watch --once --interval 1h >/dev/null || fail "watch pass 3"
keys r
wait_for "action +stop-verified +$inst" 100 && ok "a new event appears" || fail "new: $(screen)"
n_ver=$(screen | grep -n 'stop-verified' | cut -d: -f1)
[ "$n_ver" = 4 ] && ok "on the first row under the header" || fail "row $n_ver: $(screen)"
keys j
wait_for "^ .*stop-ordered" 10 && ! screen | sed -n 4p | grep -q stop-verified &&
    ok "j scrolls to older events" || fail "scroll: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 && ok "q quits" || fail "quit: $(screen)"
wait_for 'TTY-OK' 10 && ok "terminal restored" || fail "tty: $(screen)"
finish
