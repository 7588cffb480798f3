#!/usr/bin/env bash
# gpurent code (issue 26): VS Code's Remote-SSH on an instance by its ssh-config name, run as
# an argv; the entry and the host key are made first; a clear error without VS Code.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd
hosts_file_in_tmp
id=$(launch_fresh type=on-demand -- --wait --timeout 60 --label 'my box') || fail "launch"

# A stand-in for VS Code's command: it records its argv, one word a line.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/code" <<STUB
#!/bin/sh
printf '%s\n' "\$@" >"$TMP/code-argv"
STUB
chmod +x "$TMP/bin/code"
expect_ok env PATH="$TMP/bin:$PATH" "$GPURENT" code "$id" '/srv/my project'
check "code ran with --remote ssh-remote+NAME and the folder, as words" \
	'[ "$(cat "$TMP/code-argv")" = "$(printf "%s\n" --remote ssh-remote+my-box "/srv/my project")" ]'
check "the entry was written first, its host key pinned" \
	'grep -qx "Host my-box" "$HOSTS_FILE" && [ -s "$GPURENT_HOME/hostkeys/$id" ]'
check "it says ~/.ssh/config does not include the file" \
	'[[ $ERR == *"does not include $HOSTS_FILE"* && $ERR == *"--install-include"* ]]'
printf 'Include %s\n' "$HOSTS_FILE" >"$TMP/ssh_config"
run ssh -F "$TMP/ssh_config" -o BatchMode=yes my-box echo reached </dev/null
check "the name code was given reaches the instance ($RC)" '[ "$RC" = 0 ] && [ "$OUT" = reached ]'

rm "$TMP/code-argv"
expect_ok env PATH="$TMP/bin:$PATH" "$GPURENT" code "$id"
check "without a folder only the remote is given" \
	'[ "$(cat "$TMP/code-argv")" = "$(printf "%s\n" --remote ssh-remote+my-box)" ]'

# No VS Code: PATH with ssh but no code.
mkdir -p "$TMP/nocode"
ln -s "$(command -v ssh)" "$TMP/nocode/ssh"
expect_rc 1 env PATH="$TMP/nocode" "$GPURENT" code "$id"
check "without code on PATH it says what to install" \
	'[[ $ERR == *"'"'code'"' command is not on PATH"* && $ERR == *"Remote - SSH"* ]]'
pass
