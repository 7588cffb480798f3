#!/bin/bash
# Issue 30, found by the chaos run (seed 1, request r7, a full disk): a launch whose journal
# record cannot be written (the disk full) rents nothing and says why. It said "cannot
# journal the launch: not an error": the pragma run after the failed insert had replaced
# SQLite's message. The disk is made full with a file size limit, as the chaos run does.
. "$(dirname "$0")/lib.sh"

expect_ok g config set providers sim
expect_ok g offers type=on-demand -n 1 -o ids
offer=$OUT
wal=$(stat -c %s "$DB-wal")
# No file may grow beyond what the log is now: the journal's record is the first to.
run bash -c 'trap "" XFSZ; ulimit -f "$1"; shift; exec "$@"' bash $((wal / 1024 - 4)) \
	"$GPURENT" launch "$offer" -o ids
check "refused with status 1 (got $RC)" '[ "$RC" = 1 ]'
check "the database's own reason: $ERR" \
	'[[ "$ERR" == *"cannot journal the launch: "* ]] && [[ "$ERR" != *"not an error"* ]]'
check "nothing rented" '[ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 0 ]'
pass
