# lib.sh - drive `gpurent dashboard` in tmux: source it first.
#
# Each test gets its own tmux server (-L gpurent-test-PID, -f /dev/null so no user config
# leaks in), a temporary GPURENT_HOME and a fixed simulator seed; the trap kills the
# server and removes the directory however the test ends. Every wait is bounded.
#   start_dash W H [ARGS...]   run the dashboard in a W x H pane; the pane prints
#                              TTY-OK when the terminal modes came back unchanged and
#                              DASH-EXIT-<status> when it ended
#   keys KEY...                tmux send-keys to the pane
#   wait_for REGEX [TENTHS]    until the screen matches (default 5 s)
#   wait_gone REGEX [TENTHS]   until it no longer does
#   wait_until CMD [TENTHS]    until the shell command CMD succeeds (default 5 s)
#   row N                      line N of the screen (0-based)
#   $DB                        the test's state database
#   use_pg                     tests/cli/pg.sh for a screen test (start_pg, as): its server
#                              is stopped by the trap too
#   ok MSG / fail MSG / finish
set -u
G=${GPURENT:-build/gpurent}
case $G in /*) ;; *) G=$(pwd)/$G ;; esac
[ -x "$G" ] || { echo "no gpurent binary at $G" >&2; exit 1; }
GPURENT=$G
# launch_fresh FILTER... -- LAUNCH-OPTIONS...: a launch that searches again when the offer went.
. "$(dirname "${BASH_SOURCE[0]}")/../launch-fresh.sh"

TEST_NAME=$(basename "$0" .sh)
T=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-$TEST_NAME.XXXXXX")
# The server, its trap, screen, keys, wait_for and wait_gone (tests/tmux.sh).
PANE=ui
. "$(dirname "${BASH_SOURCE[0]}")/../tmux.sh"
unset GPURENT_PROFILE GPURENT_SIM_TIME GPURENT_SIM_OFFERS COLUMNS LINES XDG_CONFIG_HOME \
	XDG_STATE_HOME
for v in $(env | sed -n 's/^\([A-Za-z0-9_]*_\(API_KEY\|URL\)\)=.*/\1/p'); do unset "$v"; done
export GPURENT_HOME="$T/home" GPURENT_SIM_SEED=42 GPURENT_SIM_SPEED=60 NO_COLOR=1 \
	LC_ALL=C.UTF-8
mkdir -m 700 "$GPURENT_HOME"
DB="$GPURENT_HOME/state.db"

fails=0
ok() { echo "ok - $*"; }
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
finish() {
	[ "$fails" -eq 0 ] && { echo "ok $TEST_NAME"; exit 0; }
	echo "FAIL $TEST_NAME: $fails failed" >&2
	exit 1
}
row() { screen | sed -n "$(($1 + 1))p"; }
use_pg() {
	TMP=$T
	CLEANUP_HOOKS=()
	. "$(dirname "${BASH_SOURCE[0]}")/../cli/pg.sh"
	trap 'for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h" || true; done
		tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
}
wait_until() {
	local n=0
	while [ $n -lt "${2:-50}" ]; do
		eval "$1" && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
start_dash() {
	local w=$1 h=$2 args=""
	shift 2
	for a in "$@"; do args="$args '$a'"; done
	# The pane's shell records its pid, then becomes gpurent, so a test can signal it.
	# A server still shutting down after the last session was killed can refuse one
	# new session ("server exited unexpectedly"): try a few times.
	local tries
	for tries in 1 2 3 4 5; do
		tm new-session -d -s ui -x "$w" -y "$h" \
		    "s0=\$(stty -g); sh -c 'echo \$\$ >\"$T/pid\"; exec \"$G\" dashboard $args'; \
		    rc=\$?; [ \"\$(stty -g)\" = \"\$s0\" ] && echo TTY-OK; echo DASH-EXIT-\$rc; sleep 60" &&
		    break
		sleep 0.3
	done
	# DASH_READY: what the header starts with once drawn (another language says it otherwise).
	wait_for "${DASH_READY:-^ burn }" 100 || { fail "the dashboard did not start: $(screen)"; finish; }
}
