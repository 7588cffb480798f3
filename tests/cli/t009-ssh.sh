#!/usr/bin/env bash
# gpurent ssh against a real sshd on loopback: the simulator reports 127.0.0.1 and the port
# this test's sshd listens on; the command runs there for real.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=200

. "$(dirname "$0")/sshd.sh"
start_sshd
port=$SSHD_PORT
id=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
expect_ok g ssh "$id" --print
check "--print names host, port, user and key" \
	'[[ $OUT == *"-p $port"* && $OUT == *"-i $TMP/ssh/user"* && $OUT == *"$(id -un)@127.0.0.1"* ]]'
expect_ok g ssh "$id" -- echo hello-from-the-instance
check "the command ran over ssh" '[ "$OUT" = hello-from-the-instance ]'
check "host key kept out of ~/.ssh, pinned for the instance" '[ -s "$GPURENT_HOME/hostkeys/$id" ]'

# Remote words are never ssh options: the destination and a literal -- come first.
expect_ok g ssh "$id" --print -- -oProxyCommand=evil
check "-- and the destination come before the remote words" \
	'[[ $OUT == *"$(id -un)@127.0.0.1 -- '"' -oProxyCommand=evil'"'" ]]'
# ssh -V would print ssh's version and exit 0; on the instance it is an unknown command.
expect_rc 127 g ssh "$id" -- -V
check "-V ran on the instance, not as an ssh option" '[[ $ERR != *OpenSSH* ]]'
expect_rc 127 g ssh "$id" -- -c
check "-c is no ssh usage error" '[[ $ERR != *usage:* ]]'
# Several words arrive as they were typed, spaces, quotes and ';' included.
expect_ok g ssh "$id" -- printf '%s|' 'a b; echo pwned' "it's" 'X=1' '*'
check "each remote word kept whole" '[ "$OUT" = "a b; echo pwned|it'"'"'s|X=1|*|" ]'
# One word is a command line for the remote shell, as with ssh itself.
expect_ok g ssh "$id" -- 'echo one | tr a-z A-Z'
check "a single word runs as a shell command line" '[ "$OUT" = ONE ]'

# BatchMode only where no terminal could show a prompt (a key's passphrase).
run setsid -w "$GPURENT" ssh "$id" --print </dev/null
check "no terminal: BatchMode=yes" '[ $RC = 0 ] && [[ $OUT == *BatchMode=yes* ]]'
if command -v script >/dev/null; then
	OUT=$(script -qec "'$GPURENT' ssh '$id' --print </dev/null" /dev/null | tr -d '\r')
	check "a terminal, stdin redirected: no BatchMode ($OUT)" \
		'[[ $OUT == ssh* && $OUT != *BatchMode* ]]'
fi

# Nothing from the provider can become an ssh option.
GPURENT_SIM_SSH_HOST=-oProxyCommand=evil expect_rc 1 g ssh "$id" --print
check "a host starting with - is refused" '[[ $ERR == *"ssh host"*"not a host name; refusing"* && -z $OUT ]]'
GPURENT_SIM_SSH_USER=-oProxyCommand=evil expect_rc 1 g ssh "$id" -- true
check "a user starting with - is refused" '[[ $ERR == *"ssh user"*"not a user name; refusing"* ]]'
GPURENT_SIM_SSH_HOST='a b' expect_rc 1 g ssh "$id" --print
check "a host with a space is refused" '[[ $ERR == *"ssh host"*"not a host name; refusing"* ]]'
expect_ok g stop "$id" --wait --timeout 60
expect_rc 1 g ssh "$id" -- true
check "no endpoint while stopped" '[[ $ERR == *stopped* ]]'
pass
