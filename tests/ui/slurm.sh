# slurm.sh - a real Slurm cluster for the dashboard tests (t210, t212): source after lib.sh.
#
#   start_slurm   start tests/slurm/cluster in $T/slurm (two nodes, four stand-in h100 each);
#                 the trap stops it with the tmux server and removes $T. Sources the
#                 cluster's environment, exports a one-hour SLURM_JWT and makes slurm the
#                 only provider. The cluster needs root: as anyone else the test fails.
#   sl CMD ARGS...   a Slurm client command as root through munge, without SLURM_JWT (which
#                 the clients would otherwise use)
CLUSTER="$SRCDIR/tests/slurm/cluster"

sl() { env -u SLURM_JWT "$@"; }

start_slurm() {
	[ "$(id -u)" = 0 ] || { echo "not ok $TEST_NAME: the Slurm cluster needs root" >&2; exit 1; }
	trap 'tm kill-server 2>/dev/null; "$CLUSTER" stop "$T/slurm"; rm -rf "$T"' EXIT INT TERM
	"$CLUSTER" start "$T/slurm" >"$T/cluster.log" 2>&1 || {
		cat "$T/cluster.log" >&2
		fail "the Slurm cluster did not start"
		finish
	}
	# shellcheck source=/dev/null
	. "$T/slurm/env"
	SLURM_JWT=$(sl scontrol token username=root lifespan=3600) || { fail "no token"; finish; }
	export SLURM_JWT
	"$G" config set providers slurm >/dev/null || { fail "config set providers"; finish; }
}
