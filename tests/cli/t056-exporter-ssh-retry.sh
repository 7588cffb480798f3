#!/usr/bin/env bash
# The exporter's memory of ssh (issue 13, the first round): with --source auto semantics, an
# instance that refused ssh is sampled by its provider's API for --ssh-retry seconds before
# ssh is tried on it again, instead of paying a failed ssh attempt every round; one whose
# sshd starts later is back on ssh within the wait. Counted, not timed: every ssh process
# gpurent starts goes through a wrapper on PATH that counts it, and the lane's rounds are the
# distinct times of an instance's samples in the history (the simulator's clock runs 200x).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_SPEED=200
start_sshd
nvidia_double single-rtx4000.txt
a=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60) || fail "launch a"
b=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60) || fail "launch b"

# The instances' sshd goes away: their address refuses connections.
stop_sshd "$SSHD_PID"

# Every ssh gpurent runs is counted (a line each), then run.
mkdir -p "$TMP/bin"
real_ssh=$(command -v ssh)
cat >"$TMP/bin/ssh" <<WRAP
#!/bin/sh
echo "\$*" >>"$TMP/ssh-starts"
exec "$real_ssh" "\$@"
WRAP
chmod +x "$TMP/bin/ssh"
export PATH="$TMP/bin:$PATH"
ssh_starts() { [ -f "$TMP/ssh-starts" ] && wc -l <"$TMP/ssh-starts" || echo 0; }
# rounds ID: the lane's rounds that sampled ID; sources ID: the sources of its samples.
rounds() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(DISTINCT s.at) FROM samples s
		JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '$1'" 2>/dev/null || echo 0
}
ssh_samples() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(*) FROM samples s
		JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '$1' AND s.source = 1" 2>/dev/null || echo 0
}
api_samples() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(*) FROM samples s
		JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '$1' AND s.source = 0" 2>/dev/null || echo 0
}

# 1. A long wait: after the first round's attempt, no ssh at all, round after round.
start_exporter --ssh-retry 1h
for ((i = 0; i < 600; i++)); do
	[ "$(rounds "$a")" -ge 5 ] && [ "$(rounds "$b")" -ge 5 ] && break
	sleep 0.1
done
check "five rounds sampled both instances" '[ "$(rounds "$a")" -ge 5 ] && [ "$(rounds "$b")" -ge 5 ]'
starts=$(ssh_starts)
check "ssh was tried in the first round ($starts ssh processes)" '[ "$starts" -ge 2 ]'
check "and not in the four after it: at most two ssh processes an instance ($starts)" '[ "$starts" -le 4 ]'
check "every sample says it came from the API" \
	'[ "$(ssh_samples "$a")" = 0 ] && [ "$(ssh_samples "$b")" = 0 ] && [ "$(api_samples "$a")" -ge 5 ]'
wait_scrape "^DCGM_FI_DEV_GPU_UTIL\\{.*instance_id=\"$a\""
check "the exporter serves the API's figures meanwhile" 'grep -q "^gpurent_instance_up{instance_id=\"$b\"" <<<"$OUT"'
kill "$EXPORTER_PID"
wait "$EXPORTER_PID" 2>/dev/null

# 2. A short wait: the instances refuse ssh at first, then their sshd starts; the lane
# samples them over ssh again within the wait (2 s, then 4, 8, ...), each sample saying so.
: >"$TMP/ssh-starts"
api_before=$(api_samples "$a")
start_exporter --ssh-retry 2
for ((i = 0; i < 600; i++)); do
	[ "$(api_samples "$a")" -gt "$api_before" ] && [ "$(ssh_starts)" -ge 2 ] && break
	sleep 0.1
done
check "the first round fell back to the API" '[ "$(api_samples "$a")" -gt "$api_before" ] && [ "$(ssh_samples "$a")" = 0 ]'
sshd_again sshd2.log
for ((i = 0; i < 600; i++)); do
	[ "$(ssh_samples "$a")" -ge 1 ] && [ "$(ssh_samples "$b")" -ge 1 ] && break
	sleep 0.1
done
check "both are sampled over ssh once their sshd answers" '[ "$(ssh_samples "$a")" -ge 1 ] && [ "$(ssh_samples "$b")" -ge 1 ]'
# Back on ssh, every round: no waiting once it answers.
got=$(ssh_samples "$a")
for ((i = 0; i < 600; i++)); do
	[ "$(ssh_samples "$a")" -ge $((got + 3)) ] && break
	sleep 0.1
done
check "and over ssh round after round" '[ "$(ssh_samples "$a")" -ge $((got + 3)) ]'

expect_rc 2 g exporter --ssh-retry 2d
check "--ssh-retry over a day is refused" '[[ $ERR == *"--ssh-retry"* ]]'
expect_rc 2 g exporter --ssh-retry soon
pass
