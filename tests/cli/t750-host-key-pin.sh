#!/usr/bin/env bash
# Host keys are pinned per instance (issue 26): the first contact records the key in the
# instance's own file; a key that changes while the provider says the instance kept running
# is refused with the reason (that is what an attack looks like); once the instance was
# stopped and started again, the new key is pinned with a warning and ssh connects.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/zh.sh"
export GPURENT_SIM_SPEED=200
start_sshd
id=$(launch_fresh type=on-demand -- --wait --timeout 60) || fail "launch"

expect_ok g ssh "$id" -- echo first
check "the first contact connects" '[ "$OUT" = first ]'
pin="$GPURENT_HOME/hostkeys/$id"
check "and pins the key in the instance's own file" \
	'[ -s "$pin" ] && ssh-keygen -F "[127.0.0.1]:$SSHD_PORT" -f "$pin" | grep -q ssh-ed25519'
check "not in a file shared by every address" '[ ! -e "$GPURENT_HOME/known_hosts" ]'

# Another machine answers at the address of the running instance.
restart_sshd_new_key
expect_rc 255 g ssh "$id" -- echo second
check "a changed key on a running instance is refused" '[ -z "$OUT" ]'
check "with the reason and the file to remove" \
	'[[ $ERR == *"not the one pinned for it in '"'$pin'"'"* && $ERR == *"reports no restart"* &&
	   $ERR == *"refusing to connect"* ]]'
check "and the pin is kept" '[ -s "$pin" ] && [ ! -e "$pin.old" ]'
expect_rc 255 zh ssh "$id" -- true
check "in Chinese under a Chinese locale" '[[ $ERR == *"拒绝连接"* && $ERR == *"$pin"* ]]'

# The provider restarts it: the new key is the machine's own now.
expect_ok g stop "$id" --wait --timeout 60
expect_ok g start "$id" --wait --timeout 60
expect_ok g ssh "$id" -- echo third
check "after a stop and start the new key is pinned and ssh connects" '[ "$OUT" = third ]'
check "with a warning that says why" \
	'[[ $ERR == *"warning: the host key of $id has changed"* && $ERR == *"was restarted"* ]]'
check "the old key is kept aside" '[ -s "$pin.old" ]'
check "the new key is the pinned one" \
	'ssh-keygen -F "[127.0.0.1]:$SSHD_PORT" -f "$pin" | grep -qF "$(cut -d" " -f2 "$TMP/ssh/host.pub")"'
expect_ok g ssh "$id" -- echo fourth
check "and the next connection says nothing more" '[ "$OUT" = fourth ] && [ -z "$ERR" ]'

# A change again without a restart is refused again: the restart excused one change only.
restart_sshd_new_key
expect_rc 255 g ssh "$id" -- true
check "a second change on the running instance is refused" '[[ $ERR == *"refusing to connect"* ]]'
pass
