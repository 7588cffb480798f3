# sshd.sh - a real OpenSSH server on loopback for the remote tests: source after lib.sh.
#
#   start_sshd          start sshd as the current user on a free port with a throwaway host
#                       key and an authorized key ($TMP/ssh/user); points the simulator's
#                       instances at it and sets ssh.identity. Sets SSHD_PORT.
#                       Commands on the "instance" find $TMP/remote-bin first in PATH, for
#                       stand-ins of the tools a rented machine has (jupyter).
#
#   stop_sshd PID       stop an sshd listener and its connections (children of the listener)
#   sshd_again LOG      start the sshd of start_sshd again (after a stop_sshd), logging to
#                       $TMP/ssh/LOG
#   restart_sshd_new_key  stop the sshd of start_sshd and start it again on the same port
#                       with a new host key: the same address, another machine
#   hosts_file_in_tmp   point ssh.hosts_file (the include file of gpurent ssh-config) into
#                       $TMP; sets HOSTS_FILE
#   ssh_masters         the pids of the ssh masters on this state directory's sockets
#   sshd_sessions       how many connections the sshd of start_sshd holds open now
#
# HOME moves to $TMP so that neither ssh nor rsync read the user's ~/.ssh. The cleanup stops
# sshd with its connections: a listener's end leaves them running, and an ssh master at the
# other end of one with them.
start_sshd() {
	local sshd i attempt
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	if [ ! -x "$sshd" ] || ! command -v ssh-keygen >/dev/null; then
		echo "not ok $TEST_NAME: no sshd (install openssh-server)" >&2
		exit 1
	fi
	export HOME="$TMP/userhome"
	mkdir -p "$HOME" "$TMP/ssh" "$TMP/remote-bin"
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/host" >/dev/null
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/user" >/dev/null
	cp "$TMP/ssh/user.pub" "$TMP/ssh/authorized_keys"
	chmod 600 "$TMP/ssh/authorized_keys"
	# Privilege separation needs its directory when sshd runs as root.
	[ "$(id -u)" = 0 ] && mkdir -p /run/sshd
	# A free port can be taken between the probe and sshd's bind, and a loaded machine can
	# take seconds to start sshd: try another port when sshd exits, and go on only once its
	# log says it listens (a connect could reach another test's server on that port).
	for ((attempt = 0; attempt < 5; attempt++)); do
		for ((i = 0; i < 20; i++)); do
			SSHD_PORT=$((20000 + RANDOM % 20000))
			(exec 3<>"/dev/tcp/127.0.0.1/$SSHD_PORT") 2>/dev/null || break
		done
		cat >"$TMP/ssh/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $SSHD_PORT
HostKey $TMP/ssh/host
AuthorizedKeysFile $TMP/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowTcpForwarding yes
StrictModes no
UsePAM no
PidFile $TMP/ssh/sshd.pid
MaxStartups 50
Subsystem sftp internal-sftp
SetEnv PATH=$TMP/remote-bin:/usr/local/bin:/usr/bin:/bin HOME=$HOME
MaxSessions 50
PrintMotd no
PrintLastLog no
PermitUserRC no
UseDNS no
LogLevel VERBOSE
X11Forwarding no
CONF
		"$sshd" -D -e -f "$TMP/ssh/sshd_config" 2>"$TMP/ssh/sshd.log" &
		SSHD_PID=$!
		for ((i = 0; i < 300; i++)); do
			grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" "$TMP/ssh/sshd.log" && break 2
			kill -0 "$SSHD_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
	done
	[ -n "$SSHD_PID" ] || fail "sshd did not start: $(tail -3 "$TMP/ssh/sshd.log")"
	CLEANUP_HOOKS+=("stop_sshd $SSHD_PID")
	export GPURENT_SIM_SSH_HOST=127.0.0.1 GPURENT_SIM_SSH_PORT=$SSHD_PORT
	GPURENT_SIM_SSH_USER=$(id -un)
	export GPURENT_SIM_SSH_USER
	"$GPURENT" config set ssh.identity "$TMP/ssh/user" >/dev/null || fail "config set ssh.identity"
	# ssh reads ~/.ssh/config from the passwd entry, not $HOME: no user config at all.
	"$GPURENT" config set ssh.config /dev/null >/dev/null || fail "config set ssh.config"
}

# sshd_again LOG: start sshd again with start_sshd's config (its port, its host key file),
# logging to $TMP/ssh/LOG, and wait until it listens. Sets SSHD_PID.
sshd_again() {
	local log="$TMP/ssh/$1" i
	"$(command -v sshd || echo /usr/sbin/sshd)" -D -e -f "$TMP/ssh/sshd_config" 2>"$log" &
	SSHD_PID=$!
	CLEANUP_HOOKS+=("stop_sshd $SSHD_PID")
	for ((i = 0; i < 300; i++)); do
		grep -q "Server listening on 127.0.0.1 port $SSHD_PORT" "$log" && return 0
		kill -0 "$SSHD_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "sshd did not start again on port $SSHD_PORT: $(tail -3 "$log")"
}

restart_sshd_new_key() {
	stop_sshd "$SSHD_PID"
	rm -f "$TMP/ssh/host" "$TMP/ssh/host.pub"
	ssh-keygen -q -t ed25519 -N '' -f "$TMP/ssh/host" >/dev/null
	sshd_again sshd-new-key.log
}

stop_sshd() {
	local pid=$1 conns c i
	# Frozen, it accepts no connection between the listing of its children and its end.
	kill -STOP "$pid" 2>/dev/null || return 0
	conns=$(ps -o pid= --ppid "$pid")
	# shellcheck disable=SC2086
	kill "$pid" $conns 2>/dev/null
	kill -CONT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	for c in $conns; do
		for ((i = 0; i < 50; i++)); do
			kill -0 "$c" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$c" 2>/dev/null && kill -9 "$c"
	done
	return 0
}

hosts_file_in_tmp() {
	HOSTS_FILE="$TMP/cfg.d/gpurent"
	"$GPURENT" config set ssh.hosts_file "$HOSTS_FILE" >/dev/null || fail "config set ssh.hosts_file"
}

ssh_masters() {
	local pid args
	ps -eo pid=,args= -ww | while read -r pid args; do
		[[ $args == "ssh "* && $args == *" -N "* && $args == *"ControlPath=$GPURENT_HOME/cm/"* ]] &&
			echo "$pid"
	done
}

sshd_sessions() {
	ps -o pid= --ppid "$SSHD_PID" | wc -l
}

# Ask every master gpurent runs in this test's state directory to exit.
close_masters() {
	local s
	for s in "$GPURENT_HOME"/cm/*; do
		[ -S "$s" ] && ssh -o ControlPath="$s" -O exit gpurent-test 2>/dev/null
	done
	return 0
}
