# common.sh - what tests/pg/server and tests/pg/pgbouncer share (sourced; each defines die).
#
#   free_port            a free TCP port on 127.0.0.1
#   as_owner CMD...      run CMD as the postgres system user when root (initdb, postgres and
#                        pgbouncer refuse root), as ourselves otherwise
#   owner_dir NAME       make and print a directory for a daemon's files: as root, one of its
#                        own under /tmp owned by that user (DIR may sit under a 0700 directory
#                        it cannot traverse); otherwise DIR/NAME.d
#   stop_pid PID TENTHS  SIGINT (a fast shutdown for both daemons), then SIGKILL once TENTHS
#                        tenths of a second have passed
PG_USER=postgres

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

as_owner() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid="$PG_USER" --regid="$PG_USER" --init-groups -- "$@"
	else
		"$@"
	fi
}

owner_dir() {
	local base
	if [ "$(id -u)" = 0 ]; then
		id "$PG_USER" >/dev/null 2>&1 || die "no system user $PG_USER (the postgresql package makes it)"
		base=$(mktemp -d "/tmp/gpurent-$1.XXXXXX") || die "cannot make a directory in /tmp"
		chown "$PG_USER:" "$base" || die "cannot give $base to $PG_USER"
	else
		base=$DIR/$1.d
		mkdir "$base" || die "cannot make $base"
	fi
	chmod 0700 "$base"
	echo "$base"
}

stop_pid() {
	local i
	kill -0 "$1" 2>/dev/null || return 0
	kill -INT "$1" 2>/dev/null
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
}
