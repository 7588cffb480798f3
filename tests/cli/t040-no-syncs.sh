#!/bin/bash
# Issue 17 part 3: commands that only read from providers make no fsync/fdatasync, and a
# launch syncs its journal record before the create request leaves the machine.
#
# strace counts the sync calls of the real binary, following every thread. The first
# command creates the database (that one may sync: a new file and its directory); every
# command after it is checked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

command -v strace >/dev/null || fail "strace is not installed (scripts/install-deps installs it)"

# The server keeps its own database: a connection it held open on ours would hide the syncs
# SQLite makes when the last connection closes.
mkdir -p "$TMP/serve-home"
GPURENT_HOME=$TMP/serve-home start_serve vast --api-key test-key-vast
use_provider vast test-key-vast

# LeakSanitizer cannot run under ptrace; an ASan build keeps its other checks here, and
# every other test still checks for leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# Print the sync calls `g ARGS...` made, one line each; its output goes to $TMP/out.
syncs_of() {
	strace -f -qq -e trace=fsync,fdatasync,sync,syncfs,sync_file_range -o "$TMP/strace" \
	    "$GPURENT" "$@" >"$TMP/out" 2>"$TMP/err" || fail "'$*' failed: $(cat "$TMP/err")"
	grep -E 'fsync|fdatasync|sync' "$TMP/strace" | grep -v 'exited with' || true
}

expect_ok g --provider vast ls
expect_ok g --provider vast -o json offers gpus=1
offer=$(jq -r '.[0].id' <<<"$OUT")
expect_ok g launch "$offer" --label t040
id=$OUT
check "launched" '[[ $id == vast:[0-9]* ]]'
GPURENT_HOME=$TMP/serve-home expect_ok g sim advance 10m
expect_ok g offers

for cmd in "--provider vast offers" "--provider vast -o json offers gpu=h100" \
    "--provider vast ls" "-o json show $id" "metrics $id" "costs" "costs --by label" \
    "offers" "ls" "__complete args show vast:" "__complete args show " \
    "--provider vast offers --max-age 1h"; do
	# shellcheck disable=SC2086  # the words of cmd are the arguments
	s=$(syncs_of $cmd)
	check "'gpurent $cmd' made no disk sync: $s" '[ -z "$s" ]'
done
check "completion still lists the instance" 'grep -q "$id" "$TMP/out"'

# A launch: every WAL write made before the create request (PUT /api/v0/asks/...) is synced
# before that request is sent. Line numbers in one strace log give the order.
expect_ok g --provider vast -o json offers gpus=1
offer=$(jq -r '.[1].id' <<<"$OUT")
strace -f -qq -y -s 40 -e trace=pwrite64,write,fsync,fdatasync,sendto,sendmsg,writev \
    -o "$TMP/launch.strace" "$GPURENT" launch "$offer" >"$TMP/out" 2>"$TMP/err" ||
	fail "launch failed: $(cat "$TMP/err")"
create=$(grep -n 'PUT /api/v0/asks/' "$TMP/launch.strace" | head -1 | cut -d: -f1)
check "the create request is in the trace" '[ -n "$create" ]'
before=$(head -n $((create - 1)) "$TMP/launch.strace")
last_wal=$(grep -n 'state.db-wal>' <<<"$before" | grep -v 'fdatasync\|fsync' | tail -1 | cut -d: -f1)
last_sync=$(grep -nE '(fdatasync|fsync)\([0-9]+</[^>]*state.db-wal>' <<<"$before" | tail -1 |
    cut -d: -f1)
check "the launch journal was written before the create request" '[ -n "$last_wal" ]'
check "the WAL was synced after its last write and before the create request" \
    '[ -n "$last_sync" ] && [ "$last_sync" -gt "$last_wal" ]'
launched=$(cat "$TMP/out")
journal=$(sqlite3 "$DB" \
    "SELECT provider, settled, instance_id FROM launch_journal ORDER BY id DESC LIMIT 1")
check "the journal holds the launch, settled with its id: $journal" \
    '[ "$journal" = "vast|1|$launched" ]'
pass
