#!/usr/bin/env bash
# tests/slurm/cluster's registry of running clusters (GPURENT_SLURM_CLUSTERS) goes with the
# last cluster's stop, lock file included, and the lock stays a lock across that removal: a
# stop that waited on the removed lock file takes the lock again on the file there now, and
# waits while another holds that one. No Slurm daemons: a stop of a cluster that never
# started only unregisters it.
. "$(dirname "$0")/lib.sh"
CLUSTER=$SRCDIR/tests/slurm/cluster
export GPURENT_SLURM_CLUSTERS=$TMP/registry
REG=$GPURENT_SLURM_CLUSTERS
mkdir -p "$TMP/live"

# A registration whose cluster directory is gone is dropped; then nothing is left.
mkdir -p "$REG"
echo "$TMP/gone" >"$REG/c-stale"
expect_ok "$CLUSTER" stop "$TMP/a"
check "the last stop removed the registry: $(ls -A "$REG" 2>&1)" '[ ! -e "$REG" ]'
expect_ok "$CLUSTER" stop "$TMP/a"
check "a stop with no registry makes none" '[ ! -e "$REG" ]'

# A live cluster's registration keeps it.
mkdir -p "$REG"
echo "$TMP/live" >"$REG/c-live"
expect_ok "$CLUSTER" stop "$TMP/a"
check "a live registration keeps the registry and its lock" \
	'[ -f "$REG/c-live" ] && [ -f "$REG/lock" ]'
rm -rf "$REG"

# The race: OLD holds the lock while a stop (A) waits on it; OLD removes the registry as the
# last stop does, NEW makes it again and holds the new lock file, then OLD lets go. A now
# holds a lock on a removed file: it must take NEW's, so it is still waiting while NEW holds
# it, and finishes once NEW lets go.
mkdir -p "$REG"
echo "$TMP/gone" >"$REG/c-stale"
: >"$REG/lock"
exec 7<"$REG/lock"
flock 7 || fail "OLD could not lock"
"$CLUSTER" stop "$TMP/a" >"$TMP/a.out" 2>&1 7<&- &
A=$!
CLEANUP_HOOKS+=("kill $A 2>/dev/null")
# A is waiting on the lock once it has opened the lock file (its descriptor 9).
wait_until 300 '[ "$(readlink "/proc/$A/fd/9" 2>/dev/null)" = "$REG/lock" ]' ||
	fail "A never opened the lock file"
rm -f "$REG/lock" "$REG/c-stale"
rmdir "$REG"
mkdir -p "$REG"
echo "$TMP/live" >"$REG/c-new"
exec 8>>"$REG/lock"
flock 8 || fail "NEW could not lock"
exec 7<&-	# OLD lets go
# A woke on the removed file: it has to be waiting again, on NEW's, not running on.
wait_until 300 '[ "$(readlink "/proc/$A/fd/9" 2>/dev/null)" = "$REG/lock" ]' ||
	fail "A did not take the new lock file: $(readlink "/proc/$A/fd/9" 2>&1), $(cat "$TMP/a.out")"
check "A waits while NEW holds the lock" 'kill -0 $A 2>/dev/null'
check "NEW's registration is untouched meanwhile" '[ -f "$REG/c-new" ]'
exec 8<&-	# NEW lets go
wait_until 600 '! kill -0 $A 2>/dev/null' || fail "A never finished"
wait $A
RC=$? OUT=$(cat "$TMP/a.out")
check "A's stop succeeded (status $RC)" '[ "$RC" = 0 ]'
check "the live registration keeps the registry" '[ -f "$REG/c-new" ] && [ -f "$REG/lock" ]'
pass
