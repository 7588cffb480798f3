#!/bin/sh
# in-own-tmpdir.sh TEST [ARGS...] - run a C test under a TMPDIR of its own and check that it
# keeps to it (tests/tmpdir.h):
# - with TMPDIR a fresh empty directory, the test passes and leaves nothing there;
# - with TMPDIR a plain file, its scratch directory cannot be made there: the test fails
#   naming that file (a test that ignored TMPDIR would pass, writing to /tmp instead);
# - it leaves no process running whose command line names its TMPDIR (tests/leftovers.sh).
# Everything this makes goes under the caller's TMPDIR (/tmp when unset) and is removed.
set -u
own=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-own-tmpdir.XXXXXX") || exit 1
trap 'rm -rf "$own"' EXIT
mkdir "$own/dir" && : >"$own/file" || exit 1

TMPDIR="$own/dir" "$@"
rc=$?
LEFTOVERS_DIR=$own "$(dirname "$0")/leftovers.sh" "$1" || { [ "$rc" -ne 0 ] || rc=1; }
left=$(ls -A "$own/dir")
if [ -n "$left" ]; then
	echo "FAIL: $1 left this in its TMPDIR:" >&2
	ls -lA "$own/dir" >&2
	[ "$rc" -ne 0 ] || rc=1
fi
[ "$rc" -eq 0 ] || exit "$rc"

TMPDIR="$own/file" "$@" >"$own/out" 2>&1
rc=$?
LEFTOVERS_DIR=$own "$(dirname "$0")/leftovers.sh" "$1" || exit 1
if [ $rc -eq 0 ] || ! grep -qF "$own/file/gpurent-test-" "$own/out"; then
	echo "FAIL: $1 with TMPDIR=$own/file (a plain file) did not fail making its directory there:" >&2
	tail -n 20 "$own/out" >&2
	exit 1
fi
exit 0
