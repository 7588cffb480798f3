#!/bin/bash
# Issue 15 (the fixed costs of offers): `offers` opens the state database once (the provider
# opens its own connection only when it needs one: the ledger, the simulator), and writes
# the GPU names seen and the completion ids in one transaction beside the offer cache's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key k
use_provider vast k
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0	# under strace below

expect_ok g --provider vast offers gpus=1	# creates the database
db=$GPURENT_HOME/state.db
[ -f "$db" ] || db=$(find "$GPURENT_HOME" -name state.db | head -n 1)
check "the state database exists ($db)" '[ -f "$db" ]'

# Commit frames in the WAL whose salts match its header: one per transaction written.
wal_commits() {
	python3 - "$db-wal" <<'PY'
import struct, sys
try:
    d = open(sys.argv[1], "rb").read()
except FileNotFoundError:
    print(0); sys.exit()
if len(d) < 32:
    print(0); sys.exit()
page = struct.unpack(">I", d[8:12])[0]
salt = d[16:24]
n, off = 0, 32
while off + 24 + page <= len(d):
    if d[off + 8:off + 16] != salt:
        break
    if struct.unpack(">I", d[off + 4:off + 8])[0] != 0:
        n += 1
    off += 24 + page
print(n)
PY
}

# An empty WAL to count in, kept from restarting: SQLite's own checkpoint (after a commit
# that takes the WAL past 1000 pages, as a large offer cache can) lets the next writer start
# the WAL again over the commits before it. A reader holding its snapshot from before the
# run keeps every frame of the run in place.
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null || fail "cannot checkpoint $db"
mkfifo "$TMP/hold"
python3 - "$db" "$TMP/held" "$TMP/hold" <<'PY' &
import sqlite3, sys
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN")
con.execute("SELECT count(*) FROM meta").fetchall()
open(sys.argv[2], "w").close()
open(sys.argv[3]).read()	# until the test closes the fifo
con.execute("COMMIT")
PY
holder=$!
CLEANUP_HOOKS+=("kill $holder 2>/dev/null")
exec 7<>"$TMP/hold"	# read-write: opens at once; its close is the reader's end of file
wait_until 100 '[ -e "$TMP/held" ]'
before=$(wal_commits)
# Other offers than the first run's (gpus=2): its own offer cache row, and completion ids
# that change (ids that would be written again as they are, are not written: idcache.c;
# nor is a row of the same bytes: SQLite writes no page for it).
strace -f -qq -e trace=openat -o "$TMP/strace" "$GPURENT" --provider vast offers gpus=2 \
    >/dev/null 2>&1 || fail "offers failed under strace"
after=$(wal_commits)
exec 7>&-
wait "$holder"
opens=$(grep -c 'state\.db"' "$TMP/strace" || true)
check "offers opened the state database once, not $opens times" '[ "$opens" -eq 1 ]'
check "offers wrote two transactions (the offer cache; names and ids), not $((after - before))" \
    '[ $((after - before)) -eq 2 ]'

# The names seen and the completion ids are still written.
expect_ok g --provider vast __complete args launch vast:
check "completion knows the offers' ids" '[ -n "$OUT" ]'
pass
