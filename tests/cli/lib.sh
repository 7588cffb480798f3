# lib.sh - shared setup for the end-to-end tests: source it first.
#
# Each test gets its own GPURENT_HOME in a temporary directory (never the user's home),
# a fixed simulator seed, and a trap that removes everything it made. Helpers:
#   run CMD...            run, keeping stdout in $OUT, stderr in $ERR, status in $RC
#   expect_rc N CMD...    run and fail unless the status is N
#   expect_ok CMD...      expect_rc 0
#   check DESC EXPR       fail with DESC unless the bash expression is true
#   wait_until N EXPR     poll until the bash expression is true, at most N tenths of a second
#   offer_cache_rows P    how many answers the offer cache keeps for provider P
#   pass / fail MSG       finish
# $DB is the test's state database (made by the first command that needs it).
set -u
GPURENT=${GPURENT:?set GPURENT to the binary}
TEST_NAME=$(basename "$0" .sh)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-$TEST_NAME.XXXXXX")
export GPURENT_HOME="$TMP/home"
DB="$GPURENT_HOME/state.db"
export GPURENT_SIM_SEED=42
export NO_COLOR=1 LC_ALL=C.UTF-8
unset GPURENT_PROFILE GPURENT_SIM_TIME GPURENT_SIM_SPEED GPURENT_SIM_OFFERS COLUMNS
unset VAST_API_KEY RUNPOD_API_KEY LAMBDA_API_KEY GPURENT_VAST_API_KEY GPURENT_RUNPOD_API_KEY \
	GPURENT_LAMBDA_API_KEY GPURENT_VAST_URL GPURENT_RUNPOD_URL GPURENT_LAMBDA_URL \
	PPIO_API_KEY GPURENT_PPIO_API_KEY GPURENT_PPIO_URL
CLEANUP_HOOKS=()
CHECKS=0
LEFTOVERS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/leftovers.sh

# After the hooks: a test that leaves a process behind (one whose command line names $TMP:
# an ssh master, a daemon, a helper it forgot) fails with its ps lines, once it is killed.
cleanup() {
	local rc=$? h
	for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h" || true; done
	LEFTOVERS_DIR=$TMP "$LEFTOVERS" "$TEST_NAME" || rc=1
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT

fail() {
	echo "FAIL $TEST_NAME: $*" >&2
	echo "--- stdout:" >&2; printf '%s\n' "${OUT:-}" | head -40 >&2
	echo "--- stderr:" >&2; printf '%s\n' "${ERR:-}" | head -40 >&2
	exit 1
}

pass() {
	echo "ok $TEST_NAME ($CHECKS checks)"
	exit 0
}

run() {
	OUT=$("$@" 2>"$TMP/stderr")
	RC=$?
	ERR=$(cat "$TMP/stderr")
}

expect_rc() {
	local want=$1
	shift
	run "$@"
	CHECKS=$((CHECKS + 1))
	[ "$RC" -eq "$want" ] || fail "'$*' exited $RC, expected $want"
}

expect_ok() {
	expect_rc 0 "$@"
}

check() {
	local desc=$1
	shift
	CHECKS=$((CHECKS + 1))
	eval "$@" || fail "$desc"
}

g() {
	"$GPURENT" "$@"
}

# Poll until `g ARGS...` prints WANT on stdout, at most N half-seconds.
wait_for_output() {
	local want=$1 n=$2 i
	shift 2
	for ((i = 0; i < n; i++)); do
		[ "$(g "$@" 2>/dev/null)" = "$want" ] && return 0
		sleep 0.5
	done
	return 1
}

# Poll until the bash expression EXPR is true, at most N tenths of a second: the bounded
# wait on a condition that a test synchronises on, never a bare sleep.
wait_until() {
	local n=$1 expr=$2 i
	for ((i = 0; i < n; i++)); do
		eval "$expr" && return 0
		sleep 0.1
	done
	eval "$expr"
}

offer_cache_rows() {
	sqlite3 "$DB" "SELECT count(*) FROM offer_cache WHERE provider = '$1'"
}

# A job's payload that waits for a gate the test opens: `sh -c "$GATE_WAIT" sh FILE` waits
# until FILE exists, at most 10 minutes (so that a job whose test died still ends), and fails
# if it never came. A test holds a job running this way for as long as its checks take.
# shellcheck disable=SC2016
GATE_WAIT='i=0; while [ ! -e "$1" ] && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]'

# launch_fresh FILTER... -- LAUNCH-OPTIONS... (tests/launch-fresh.sh)
. "$(dirname "${BASH_SOURCE[0]}")/../launch-fresh.sh"
