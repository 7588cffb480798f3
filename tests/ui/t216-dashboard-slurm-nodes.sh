#!/bin/bash
# t216: the metrics view of a two-node Slurm job draws every node's GPUs from the sample
# history, each under its node, although Slurm reports no metrics itself (the view's own
# sample fails): the history is what metrics, watch or the exporter recorded over ssh, kept
# as ID/NODE. The job comes from a slurmrestd look-alike (tests/cli/slurm-fake.py).
. "$(dirname "$0")/lib.sh"
python3 "$SRCDIR/tests/cli/slurm-fake.py" "$T/port" 'f[1-2]' &
FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null; wait $FAKE_PID 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
wait_until '[ -s "$T/port" ]' 100 || { fail "the look-alike did not start"; finish; }
export GPURENT_SLURM_URL="http://127.0.0.1:$(cat "$T/port")" SLURM_JWT=test-token
unset GPURENT_SIM_SPEED
"$G" config set providers slurm >/dev/null && "$G" config set slurm.user root >/dev/null ||
    { fail "config"; finish; }
"$G" metrics slurm:5 --since 1h >/dev/null || { fail "no history tables"; finish; }
# Ten minutes of GPU 0 on each node, as ssh sampled them: f1 at 7 %, f2 at 93 %.
now=$(date +%s)
for n in f1 f2; do
	sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO sample_series(instance_id, gpu) VALUES ('slurm:5/$n', 0)"
	series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = 'slurm:5/$n'")
	u=$([ $n = f1 ] && echo 7 || echo 93)
	values=$(for k in $(seq 1 60); do printf '(%d, %d, 1, %d),' "$series" $((now - 10 * k)) "$u"; done)
	sqlite3 -cmd ".timeout 10000" "$DB" "INSERT INTO samples(series, at, source, util) VALUES ${values%,}" ||
	    { fail "insert failed"; finish; }
done

start_dash 130 40 --view metrics
wait_for '^ f1 GPU 0' 100 && ok "f1's GPU 0 from the history" || fail "f1: $(screen)"
screen | grep -q '^ f2 GPU 0' && ok "f2's GPU 0, a GPU of its own" || fail "f2: $(screen)"
wait_for 'f1 GPU 0, every field' 20 && screen | grep -q -E 'utilisation +7 %' &&
    ok "the selected GPU's fields: f1 at 7 %" || fail "fields: $(screen)"
util=$(screen | grep -m2 '^  util ' | tail -1)
[ "$(grep -o '[▁▂▃▄▅▆▇█]' <<<"$util" | wc -l)" -ge 60 ] && grep -q '93 %' <<<"$util" &&
    ok "f2's sparkline from its 60 samples at 93 %" || fail "f2 sparkline: $util"
# A sample recorded after the view was filled (as watch or --follow would) is shown at a
# later refresh: with no live sample, the view reads the history again.
series=$(sqlite3 -cmd ".timeout 10000" "$DB" "SELECT id FROM sample_series WHERE instance_id = 'slurm:5/f1'")
sqlite3 -cmd ".timeout 10000" "$DB" \
    "INSERT INTO samples(series, at, source, util) VALUES ($series, $(date +%s), 1, 55)" ||
    fail "insert failed"
wait_for 'utilisation +55 %' 150 && ok "a sample recorded later is shown at a refresh" ||
    fail "refresh: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 50 && ok "q quits" || fail "quit: $(screen)"
finish
