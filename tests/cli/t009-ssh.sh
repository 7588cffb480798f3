#!/usr/bin/env bash
# gpurent ssh against a real sshd on loopback: the simulator reports 127.0.0.1 and the port
# this test's sshd listens on; the command runs there for real.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=200

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$SSHD" ] || ! command -v ssh-keygen >/dev/null; then
	echo "# SKIP $TEST_NAME: no sshd or ssh-keygen"
	exit 77
fi
mkdir -p "$TMP/ssh"
ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/host" >/dev/null
ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/user" >/dev/null
cp "$TMP/ssh/user.pub" "$TMP/ssh/authorized_keys"
chmod 600 "$TMP/ssh/authorized_keys"
# Privilege separation needs its directory when sshd runs as root.
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
port=$((20000 + RANDOM % 20000))
cat >"$TMP/ssh/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $TMP/ssh/host
AuthorizedKeysFile $TMP/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
StrictModes no
UsePAM no
PidFile $TMP/ssh/sshd.pid
CONF
"$SSHD" -D -e -f "$TMP/ssh/sshd_config" 2>"$TMP/ssh/sshd.log" &
sshd_pid=$!
CLEANUP_HOOKS+=("kill $sshd_pid 2>/dev/null; wait $sshd_pid 2>/dev/null")
for i in $(seq 1 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done

export GPURENT_SIM_SSH_HOST=127.0.0.1 GPURENT_SIM_SSH_PORT=$port GPURENT_SIM_SSH_USER=$(id -un)
expect_ok g config set ssh.identity "$TMP/ssh/user"
id=$(g launch "$(g offers type=on-demand -o ids -n 1)" --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
expect_ok g ssh "$id" --print
check "--print names host, port, user and key" \
	'[[ $OUT == *"-p $port"* && $OUT == *"-i $TMP/ssh/user"* && $OUT == *"$(id -un)@127.0.0.1"* ]]'
expect_ok g ssh "$id" -- echo hello-from-the-instance
check "the command ran over ssh" '[ "$OUT" = hello-from-the-instance ]'
check "host key kept out of ~/.ssh" '[ -s "$GPURENT_HOME/known_hosts" ]'
expect_ok g stop "$id" --wait --timeout 60
expect_rc 1 g ssh "$id" -- true
check "no endpoint while stopped" '[[ $ERR == *stopped* ]]'
pass
