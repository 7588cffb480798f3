#!/usr/bin/env bash
# An ssh master whose control socket was removed ends (issue 34), even with a session still
# open through it: nothing could reach it any more, and ControlPersist, which counts from
# the last client, would keep it forever. The gpurent that used it sees its connection end.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd
id=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60) || fail "launch"

"$GPURENT" ssh "$id" -- sh -c "touch $TMP/started; $GATE_WAIT" sh "$TMP/gate" >/dev/null 2>&1 &
holder=$!
CLEANUP_HOOKS+=("touch $TMP/gate; wait $holder 2>/dev/null")
check "a command holds a session through the master" 'wait_until 300 "[ -e $TMP/started ] &&
	[ -n \"\$(ssh_masters)\" ] && [ \"\$(sshd_sessions)\" = 1 ]"'
rm -rf "$GPURENT_HOME/cm"
check "the master ends with its socket" 'wait_until 30 "[ -z \"\$(ssh_masters)\" ]"'
check "and sshd holds no connection" 'wait_until 30 "[ \"\$(sshd_sessions)\" = 0 ]"'
wait "$holder"
rc=$?
check "gpurent ssh says its connection ended: 255 ($rc)" '[ "$rc" = 255 ]'
# The remote command lives on without its session (sshd leaves it be): the gate ends it.
touch "$TMP/gate"
pass
