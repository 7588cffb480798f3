#!/usr/bin/env bash
# The ssh transport against a real sshd: one shared master per instance, the remote status
# as gpurent's, 255 and a clear word for each way a connection fails, and provider fields
# that try to become ssh options or commands refused before ssh runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand -- --label '$(touch PWNED-label)' --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

# A command that is still running holds the master: the commands meanwhile share it.
"$GPURENT" ssh "$id" -- sh -c "$GATE_WAIT" sh "$TMP/gate" >/dev/null 2>&1 &
holder=$!
CLEANUP_HOOKS+=("touch $TMP/gate; wait $holder 2>/dev/null")
wait_until 300 '[ -n "$(find "$GPURENT_HOME/cm" -type s 2>/dev/null)" ]'
expect_ok g ssh "$id" -- echo first
check "the command ran" '[ "$OUT" = first ]'
sock=$(find "$GPURENT_HOME/cm" -type s | head -1)
check "a master socket in the state directory, short enough for any unix" \
	'[ -S "$sock" ] && [ ${#sock} -lt 87 ]'
check "the master answers ssh -O check" 'ssh -o ControlPath="$sock" -O check gpurent-test 2>/dev/null'
logins=$(grep -c "Accepted publickey" "$TMP/ssh/sshd.log")
expect_ok g ssh "$id" -- echo second
expect_ok g ssh "$id" -- true
check "later commands reuse the master: no new login" \
	'[ "$(grep -c "Accepted publickey" "$TMP/ssh/sshd.log")" = "$logins" ]'
touch "$TMP/gate"
wait "$holder"
check "a label with \$(...) ran nothing" '[ ! -e PWNED-label ] && [ ! -e "$HOME/PWNED-label" ] && [ ! -e /root/PWNED-label ]'

expect_rc 7 g ssh "$id" -- 'exit 7'
check "the remote status is gpurent's" '[ $RC = 7 ]'
expect_ok g ssh "$id" --print
check "--print: BatchMode without a terminal, -- after the destination" \
	'[[ $OUT == *BatchMode=yes* && $OUT == *"127.0.0.1 --"* || $OUT == *BatchMode=yes*"127.0.0.1" ]]'
expect_ok g ssh "$id" --print -- ls
check "--print: the destination, then --, then the remote words" '[[ $OUT == *"@127.0.0.1 -- ls" ]]'
script -qec "$GPURENT ssh $id --print" /dev/null >"$TMP/tty.out" </dev/null
check "no BatchMode on a terminal" '! grep -q BatchMode "$TMP/tty.out" && grep -q ControlPath "$TMP/tty.out"'

# A key the server does not know: 255 and the words that say so.
ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/stranger" >/dev/null
g config set ssh.identity "$TMP/ssh/stranger" >/dev/null
expect_rc 255 g ssh "$id" -- true
check "a refused key is named" '[[ $ERR == *"refused the key"*stranger* ]]'
expect_rc 255 g cp "$TMP/ssh/user.pub" "$id:$TMP/x"
check "cp says the same" '[[ $ERR == *"refused the key"* ]]'
g config set ssh.identity "$TMP/ssh/user" >/dev/null

# Nothing listens: refused, 255.
closed=$((SSHD_PORT + 1))
GPURENT_SIM_SSH_PORT=$closed expect_rc 255 g ssh "$id" -- true
check "a closed port is named" '[[ $ERR == *"connection refused"* ]]'

# Provider fields that would be ssh options or shell commands never reach ssh.
GPURENT_SIM_SSH_USER="-oProxyCommand=touch $TMP/pwned" expect_rc 1 g ssh "$id" -- true
check "a user starting with - is refused" '[[ $ERR == *"not a user name"* ]] && [ ! -e "$TMP/pwned" ]'
GPURENT_SIM_SSH_HOST="-oProxyCommand=touch $TMP/pwned" expect_rc 1 g ssh "$id" -- true
check "a host starting with - is refused" '[[ $ERR == *"not a host name"* ]] && [ ! -e "$TMP/pwned" ]'
GPURENT_SIM_SSH_HOST="\$(touch $TMP/pwned)" expect_rc 1 g cp "$TMP/ssh/user.pub" "$id:x"
check "a host with \$(...) is refused by cp too" '[[ $ERR == *"not a host name"* ]] && [ ! -e "$TMP/pwned" ]'

# RunPod's proxy carries shells only: copies and forwards say so, and how to get full ssh.
GPURENT_SIM_SSH_HOST=ssh.runpod.io expect_rc 12 g cp "$TMP/ssh/user.pub" "$id:x"
check "cp over the shell-only proxy is refused with the way out" '[[ $ERR == *"RunPod"*"ssh proxy"*"port 22"* ]]'
GPURENT_SIM_SSH_HOST=ssh.runpod.io expect_rc 12 g forward "$id" 8888
check "forward too" '[[ $ERR == *"RunPod"*"ssh proxy"* ]]'

# A state directory whose path has a space, quotes, a % token and a $: the -o values, the
# -i path and rsync's -e line must all carry it intact.
odd="$TMP/st ate 'q' \"d\" %h \$x"
mkdir -p "$odd"
cp "$GPURENT_HOME/config" "$odd/config"
# The database with its write-ahead log: recent writes live there until a checkpoint.
cp "$GPURENT_HOME"/state.db "$GPURENT_HOME"/state.db-wal "$odd/"
cp "$TMP/ssh/user" "$odd/key %d 'k'"
GPURENT_HOME=$odd g config set ssh.identity "$odd/key %d 'k'" >/dev/null
GPURENT_HOME=$odd expect_ok g ssh "$id" -- echo odd
check "ssh with an odd state directory and key path (its master's files there)" \
	'[ "$OUT" = odd ] && [ -s "$odd/hostkeys/$id" ] && [ -n "$(find "$odd/cm" -name "*.users")" ]'
echo payload >"$TMP/payload"
GPURENT_HOME=$odd expect_ok g cp "$TMP/payload" "$id:$TMP/payload-copy"
check "rsync -e carries the odd paths" 'cmp -s "$TMP/payload" "$TMP/payload-copy"'

expect_ok g stop "$id" --wait --timeout 60
expect_rc 1 g ssh "$id" -- true
check "a stopped instance is named as such" '[[ $ERR == *"is stopped, not running"* ]]'
pass
