#!/usr/bin/env bash
# A gpurent that ends normally closes the ssh masters it was the last user of (issue 34):
# none is left running after `gpurent ssh` or after an exporter stopped by SIGTERM, and
# sshd holds no connection for it; a master that another gpurent still uses stays until
# that one ends. (Before, each master outlived its gpurent by a minute of ControlPersist.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_SPEED=200
start_sshd
nvidia_double single-rtx4000.txt
id=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60) || fail "launch"

expect_ok g ssh "$id" -- echo hello
check "the command ran over ssh" '[ "$OUT" = hello ] && [ "$(sshd_connections)" -ge 1 ]'
check "no master is left once gpurent ssh has ended" 'wait_until 20 "[ -z \"\$(ssh_masters)\" ]"'
check "and sshd holds no connection" 'wait_until 20 "[ \"\$(sshd_sessions)\" = 0 ]"'

# Two users of one master: the first to end leaves it to the other.
"$GPURENT" ssh "$id" -- sh -c "touch $TMP/started; $GATE_WAIT" sh "$TMP/gate" >/dev/null 2>&1 &
holder=$!
CLEANUP_HOOKS+=("touch $TMP/gate; wait $holder 2>/dev/null")
check "the holder's command runs through a master" \
	'wait_until 300 "[ -e $TMP/started ] && [ -n \"\$(ssh_masters)\" ]"'
master=$(ssh_masters)
expect_ok g ssh "$id" -- true
check "a gpurent that shared the master leaves it to the one still using it" \
	'[ "$(ssh_masters)" = "$master" ] && kill -0 "$holder"'
touch "$TMP/gate"
wait "$holder"
rc=$?
check "the holder ended well ($rc)" '[ "$rc" = 0 ]'
check "the master closed with its last user" 'wait_until 20 "[ -z \"\$(ssh_masters)\" ]"'

# An exporter sampling over ssh, stopped as a service manager stops it.
start_exporter
wait_scrape "^DCGM_FI_DEV_GPU_UTIL\\{.*instance_id=\"$id\""
check "the exporter samples through a master" '[ -n "$(ssh_masters)" ]'
kill "$EXPORTER_PID"
wait "$EXPORTER_PID"
rc=$?
check "the exporter ended on SIGTERM with status 0 ($rc)" '[ "$rc" = 0 ]'
check "no master is left once the exporter has ended" 'wait_until 20 "[ -z \"\$(ssh_masters)\" ]"'
check "and sshd holds no connection" 'wait_until 20 "[ \"\$(sshd_sessions)\" = 0 ]"'
pass
