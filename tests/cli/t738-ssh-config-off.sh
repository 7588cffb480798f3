#!/usr/bin/env bash
# gpurent ssh-config --off: gpurent stops keeping the ssh include file (it stays as it is),
# gpurent code no longer turns the updates on (it refuses, and runs no VS Code), and
# ssh-config without --off turns them on again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_TIME=1790000000
start_sshd
hosts_file_in_tmp
expect_ok g offers type=on-demand -o json
od=$(jq -r '[.[] | select(.available >= 2)][0].id' <<<"$OUT")
expect_ok g launch "$od" --label first
first=$OUT
expect_ok g sim advance 5m
expect_ok g ssh-config
check "on: the entry is written" 'grep -qx "Host first" "$HOSTS_FILE"'

expect_rc 2 g ssh-config --off --print
expect_ok g ssh-config --off
check "--off says what it means" '[[ $ERR == *"no longer updates"* && $ERR == *"gpurent code"* ]]'
before=$(cat "$HOSTS_FILE")
expect_ok g launch "$od" --label second
second=$OUT
expect_ok g sim advance 5m
expect_ok g destroy --yes "$first"
expect_ok g ls
check "off: the file is left as it was" '[ "$(cat "$HOSTS_FILE")" = "$before" ]'

# A stand-in for VS Code's command: it says when it runs.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\ntouch "%s"\n' "$TMP/code-ran" >"$TMP/bin/code"
chmod +x "$TMP/bin/code"
expect_rc 13 env PATH="$TMP/bin:$PATH" "$GPURENT" code "$second"
check "code refuses while ssh-config is off, and says how to turn it on" \
	'[[ $ERR == *"ssh-config --off"* && $ERR == *"turns it on again"* ]] && [ ! -e "$TMP/code-ran" ]'
check "and turned nothing on" '[ "$(cat "$HOSTS_FILE")" = "$before" ]'

expect_ok g ssh-config
check "on again: the running one is in, the destroyed one out" \
	'grep -qx "Host second" "$HOSTS_FILE" && ! grep -qx "Host first" "$HOSTS_FILE"'
expect_ok env PATH="$TMP/bin:$PATH" "$GPURENT" code "$second"
check "code runs again" '[ -e "$TMP/code-ran" ]'
pass
