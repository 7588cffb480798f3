#!/usr/bin/env bash
# A connection that dies under gpurent cp's first remote command (the look for directories
# among the sources): ssh ends 255 without a word of its own, and gpurent says what broke
# (the chaos run's long run found cp exiting 255 with nothing on stderr).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
command -v rsync >/dev/null || fail "rsync is not installed (scripts/install-deps)"
start_sshd
id=$(launch_fresh type=on-demand -- --wait --timeout 60) || fail "launch"
echo hello >"$TMP/remote-file"
g cp "$id:$TMP/remote-file" "$TMP/first" >/dev/null
check "a copy goes through while the connection holds" 'cmp "$TMP/remote-file" "$TMP/first"'

# The instance's sh (first in its PATH) kills the sshd process of its own connection: the
# connection, and the master's with it, is gone mid-command, as when a machine is taken.
cat >"$TMP/remote-bin/sh" <<'SH'
#!/bin/bash
p=$PPID
for ((i = 0; i < 8; i++)); do
	case $(cat "/proc/$p/comm") in sshd*) kill -9 "$p"; exit 0 ;; esac
	p=$(awk '{ print $4 }' "/proc/$p/stat")
done
exit 99
SH
chmod +x "$TMP/remote-bin/sh"
expect_rc 255 g cp "$id:$TMP/remote-file" "$TMP/second"
check "it says the connection broke: $ERR" '[[ $ERR == *"the connection to $id broke"* ]]'
check "and nothing was written" '[ ! -e "$TMP/second" ]'
pass
