#!/bin/sh
# in-own-tmpdir.sh TEST [ARGS...] - run a C test under a TMPDIR of its own and check that it
# keeps to it (tests/tmpdir.h):
# - with TMPDIR a fresh empty directory, the test passes and leaves nothing there;
# - with TMPDIR a plain file, its scratch directory cannot be made there: the test fails
#   naming that file (a test that ignored TMPDIR would pass, writing to /tmp instead);
# - it leaves no process running whose command line names its TMPDIR: one that does fails
#   the test with its ps line, and is killed.
# Everything this makes goes under the caller's TMPDIR (/tmp when unset) and is removed.
set -u
own=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-own-tmpdir.XXXXXX") || exit 1
trap 'rm -rf "$own"' EXIT
mkdir "$own/dir" && : >"$own/file" || exit 1

# "PID ARGS" of the processes naming $own (awk reads it from its environment, so that its
# own command line does not), a process ending in the moment given three seconds.
leftovers() {
	i=0
	while :; do
		left=$(ps -eo pid=,args= -ww | OWN=$own awk 'index($0, ENVIRON["OWN"]) { print }')
		[ -z "$left" ] || [ $i -ge 30 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	[ -z "$left" ] && return 0
	echo "FAIL: $1 left these processes running:" >&2
	echo "$left" >&2
	# shellcheck disable=SC2046
	kill -9 $(echo "$left" | cut -d ' ' -f 1) 2>/dev/null
	return 1
}

TMPDIR="$own/dir" "$@"
rc=$?
leftovers "$1" || { [ "$rc" -ne 0 ] || rc=1; }
left=$(ls -A "$own/dir")
if [ -n "$left" ]; then
	echo "FAIL: $1 left this in its TMPDIR:" >&2
	ls -lA "$own/dir" >&2
	[ "$rc" -ne 0 ] || rc=1
fi
[ "$rc" -eq 0 ] || exit "$rc"

TMPDIR="$own/file" "$@" >"$own/out" 2>&1
rc=$?
leftovers "$1" || exit 1
if [ $rc -eq 0 ] || ! grep -qF "$own/file/gpurent-test-" "$own/out"; then
	echo "FAIL: $1 with TMPDIR=$own/file (a plain file) did not fail making its directory there:" >&2
	tail -n 20 "$own/out" >&2
	exit 1
fi
exit 0
