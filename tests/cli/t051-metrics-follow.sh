#!/usr/bin/env bash
# metrics --follow over ssh: one connection and one session per instance for every sample
# (counted in sshd's own log), samples that change from one to the next, several instances
# at once, and a connection killed mid-follow re-established with the gap marked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand -- --label fleet --wait --timeout 60)
id2=$(launch_fresh type=on-demand -- --label fleet --wait --timeout 60)
check "launched two" '[[ $id == sim:i-* && $id2 == sim:i-* ]]'

# Busy from the second sample on.
sed 's/, 550.90.07, [0-9]*, /, 550.90.07, 77, /' "$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/h100-busy.txt"
nvidia_double h100x8.txt "$TMP/h100-busy.txt"
sessions() { grep -c "Starting session" "$TMP/ssh/sshd.log"; }
conns0=$(sshd_connections)
sess0=$(sessions)
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 4 -o json
check "4 samples of 8 GPUs, one JSON object a line" '[ "$(wc -l <<<"$OUT")" = 32 ] && jq -e -s "length == 32 and all(.[]; .source == \"ssh\")" <<<"$OUT" >/dev/null'
check "the samples change: idle first, busy after" \
	'jq -e -s "(.[0:8] | all(.util_pct == 2 or .util_pct <= 3)) and (.[8:] | all(.util_pct == 77))" <<<"$OUT" >/dev/null'
check "one ssh connection for all four samples" '[ $(( $(sshd_connections) - conns0 )) = 1 ]'
check "one session on it: the sampler's loop" '[ $(( $(sessions) - sess0 )) = 1 ]'
check "nvidia-smi asked four times" '[ "$(nvidia_queries)" = 4 ]'

# The table: one header, rows of each round under it.
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 2
check "one header over two rounds" '[ "$(grep -c "^INSTANCE" <<<"$OUT")" = 1 ] && [ "$(grep -c "^$id" <<<"$OUT")" = 16 ]'

# Two instances by label: samples of both.
expect_ok g metrics --label fleet --source ssh --follow --interval 1 --count 2 -o json
check "both instances, two samples each" \
	'jq -e -s "(map(select(.instance_id == \"$id\")) | length) == 16 and (map(select(.instance_id == \"$id2\")) | length) == 16" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" "$id2" --source ssh -o json
check "two ids at once" 'jq -e "length == 16" <<<"$OUT" >/dev/null'

# Kill the connection under a follow: it comes back, and the hole is in the output.
close_masters
conns0=$(sshd_connections)
"$GPURENT" metrics "$id" --source ssh --follow --interval 1 --count 5 -o json >"$TMP/follow.json" 2>"$TMP/follow.err" &
follower=$!
CLEANUP_HOOKS+=("kill $follower 2>/dev/null")
# Bounded waits on what the follower wrote, long enough for a loaded machine (60 s, 120 s).
for ((i = 0; i < 600; i++)); do
	[ "$(wc -l <"$TMP/follow.json")" -ge 8 ] && break
	sleep 0.1
done
check "a first sample before the kill" '[ "$(wc -l <"$TMP/follow.json")" -ge 8 ]'
# The connection's server side: sshd's children, started by this test's sshd.
for p in $(pgrep -P "$SSHD_PID"); do kill "$p"; done
for ((i = 0; i < 1200; i++)); do
	kill -0 "$follower" 2>/dev/null || break
	sleep 0.1
done
check "the follow ended by itself after its samples" '! kill -0 "$follower" 2>/dev/null'
wait "$follower"
rc=$?
check "it exited 0 ($rc)" '[ "$rc" = 0 ]'
OUT=$(cat "$TMP/follow.json")
ERR=$(cat "$TMP/follow.err")
check "a gap record between the samples" 'jq -e -s "map(select(.gap)) | length == 1 and (.[0].gap.from <= .[0].gap.to)" <<<"$OUT" >/dev/null'
check "all five samples came" 'jq -e -s "map(select(.gpu != null)) | length == 40" <<<"$OUT" >/dev/null'
check "the gap sits between samples" 'jq -e -s "(map(.gap != null) | index(true)) as \$g | \$g >= 8 and \$g < 40" <<<"$OUT" >/dev/null'
check "the drop and the reconnection on stderr" '[[ $ERR == *"dropped"* && $ERR == *"reconnected"* ]]'
check "a second connection, not one per sample" '[ $(( $(sshd_connections) - conns0 )) = 2 ]'

# The table marks the gap on its own line. The follower runs until the test has seen the
# gap and then stops it: with a fixed --count, a loaded machine let it print all its samples
# before the kill below landed, and there was no gap to mark.
"$GPURENT" metrics "$id" --source ssh --follow --interval 1 >"$TMP/follow.txt" 2>/dev/null &
follower=$!
CLEANUP_HOOKS+=("kill $follower 2>/dev/null")
for ((i = 0; i < 600; i++)); do
	[ "$(grep -c "^$id" "$TMP/follow.txt")" -ge 8 ] && break
	sleep 0.1
done
check "a first table sample before the kill" '[ "$(grep -c "^$id" "$TMP/follow.txt")" -ge 8 ]'
for p in $(pgrep -P "$SSHD_PID"); do kill "$p"; done
for ((i = 0; i < 1200; i++)); do
	grep -q "(connection lost) --$" "$TMP/follow.txt" && [ "$(grep -c "^$id" "$TMP/follow.txt")" -ge 16 ] &&
		break
	sleep 0.1
done
kill -INT "$follower"
wait "$follower"
OUT=$(cat "$TMP/follow.txt")
check "the table says where samples are missing" '[[ $OUT == *"-- $id: no samples from "*" (connection lost) --"* ]]'
rows_after_gap() { awk '/connection lost/ { f = 1; next } f' "$TMP/follow.txt" | grep -c "^$id"; }
check "and goes on after it" '[ "$(rows_after_gap)" -ge 8 ]'
pass
