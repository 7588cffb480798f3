#!/bin/bash
# t065: the metrics view starts its sparklines from the sample history (an hour of stored
# samples fills them at once), shows every field of the selected GPU with N/A for what the
# provider does not report, in a right-hand column when wide and under the graphs when
# narrow, and j moves the selection to the next GPU. A node's series (ID/NODE, a multi-node
# job's) is in the instance's history too, a GPU of its own named by its node.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=1

offer=$("$G" -o ids offers type=on-demand 'gpus>=2' --limit 1 2>/dev/null)
inst=$("$G" -o ids launch "$offer" 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac
# The simulator boots it in 50 to 80 s: moved past that on its clock, not waited out at
# speed 1 (a minute of the test).
"$G" sim advance 90 >/dev/null || { echo "sim advance failed" >&2; exit 1; }
[ "$("$G" -o json show "$inst" | jq -r .state)" = running ] ||
    { echo "$inst is not running after 90 s" >&2; exit 1; }
now=$("$G" metrics "$inst" -o json | jq -r '.[0].time | fromdateiso8601')
[ -n "$now" ] || { echo "no first sample" >&2; exit 1; }
# Sixty stored samples of GPU 0 over the last ten minutes, utilisation 0 then 100 in turn:
# low bars that a live sample of the simulator's busy workload never draws.
series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = '$inst' AND gpu = 0")
values=$(for k in $(seq 1 60); do printf '(%d, %d, 0, %d),' "$series" $((now - 10 * k)) $(((k % 2) * 100)); done)
sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO samples(series, at, source, util) VALUES ${values%,}" ||
    { echo "insert failed" >&2; exit 1; }
# A second machine's GPU 0 of the same instance, kept as ID/NODE as a multi-node Slurm
# job's nodes are (session.h: session_record): the history brings it as a GPU of its own, named by its node.
gpus=$("$G" metrics "$inst" -o json | jq length)
sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO sample_series(instance_id, gpu) VALUES ('$inst/nb', 0)"
series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = '$inst/nb'")
values=$(for k in $(seq 1 60); do printf '(%d, %d, 1, 7),' "$series" $((now - 10 * k)); done)
sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO samples(series, at, source, util) VALUES ${values%,}" ||
    { echo "insert failed" >&2; exit 1; }

start_dash 130 40 --view metrics
wait_for '^ GPU 0' 50 && ok "metrics of $inst" || fail "metrics: $(screen)"
util=$(screen | grep -m1 '^  util ')
bars=$(grep -o '[▁▂▃▄▅▆▇█]' <<<"$util" | wc -l)
[ "$bars" -ge 60 ] && ok "the util sparkline starts from the history ($bars points)" ||
    fail "util sparkline has $bars points: $util"
grep -q '▁' <<<"$util" && grep -q '█' <<<"$util" && ok "stored 0 % and 100 % drawn" ||
    fail "history values: $util"
wait_for 'GPU 0, every field' 20 && ok "field list of the selected GPU" || fail "fields: $(screen)"
screen | grep -q -E 'utilisation +[0-9]+ %' && ok "utilisation in the list" ||
    fail "utilisation: $(screen)"
screen | grep -q -E 'SM clock +N/A' && ok "SM clock N/A from the API" || fail "N/A: $(screen)"
screen | grep -q -E 'source +api, [0-9]+s ago' && ok "source and age" || fail "source: $(screen)"
col=$(screen | grep 'GPU 0, every field' | awk '{ print index($0, "GPU 0, every field") }')
[ "$col" -gt 90 ] && ok "in a right-hand column when wide" || fail "column at $col"

keys j
wait_for 'GPU 1, every field' 30 && ok "j selects GPU 1" || fail "select: $(screen)"
wait_for '^ GPU 1' 10 && ok "GPU 1 shown first" || fail "GPU 1: $(screen)"

tm resize-window -t ui -x 80 -y 40 2>/dev/null || tm resize-pane -t ui -x 80 -y 40
keys k
wait_for 'GPU 0, every field' 30 && ok "narrow: the list is still there" || fail "narrow: $(screen)"
col=$(screen | grep 'GPU 0, every field' | awk '{ print index($0, "GPU 0, every field") }')
line=$(screen | grep -n 'GPU 0, every field' | cut -d: -f1)
pline=$(screen | grep -n '^  power ' | head -1 | cut -d: -f1)
[ "$col" -lt 10 ] && [ "$line" -gt "$pline" ] && ok "narrow: under the graphs" ||
    fail "narrow layout: col $col line $line power $pline"
for ((k = 0; k < gpus; k++)); do keys j; done
wait_for 'nb GPU 0, every field' 30 && ok "the node's GPU after the instance's $gpus" ||
    fail "node GPU: $(screen)"
screen | grep -q -E '^ nb GPU 0' && screen | grep -q -E 'utilisation +7 %' &&
    ok "its history: 7 %" || fail "node GPU history: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 && ok "q quits" || fail "quit: $(screen)"
finish
