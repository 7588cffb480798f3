#!/bin/sh
# no-leftovers.sh TEST [ARGS...] - run a test under a TMPDIR of its own and fail it when it
# leaves a process running whose command line names that directory (tests/leftovers.sh): for
# the dashboard tests, whose exit traps are each their own.
set -u
own=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-ui.XXXXXX") || exit 1
TMPDIR=$own "$@"
rc=$?
LEFTOVERS_DIR=$own "$(dirname "$0")/leftovers.sh" "$(basename -- "${2:-$1}" .sh)" || rc=1
rm -rf "$own"
exit "$rc"
