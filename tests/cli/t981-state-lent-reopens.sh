#!/usr/bin/env bash
# A team's state that could not be opened when a long-lived session began is opened again by
# its next piece of work (issue 31, left over from lending the state to the simulator): the
# shell's next command, the exporter's next round, once the database is there. Before, the
# simulator held the failed state for the whole session, so every later command of the
# shell failed with the first one's words ("database ... does not exist") even after the
# database was made, and the exporter said the simulator was down for good. (The
# dashboard's lanes: tests/ui/t982.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/exporter.sh"
start_pg
psql_() { psql "$GPURENT_TEST_PG_URL" -qAtX -v ON_ERROR_STOP=1 "$@"; }
later=${GPURENT_TEST_PG_URL%/gpurent}/later
expect_ok g config set state.url "$later"

# One shell for the whole test, fed one command at a time through a FIFO.
mkfifo "$TMP/in"
g shell <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
shell=$!
CLEANUP_HOOKS+=("kill $shell 2>/dev/null")
exec 3>"$TMP/in"
CLEANUP_HOOKS+=("exec 3>&-")
# Each command ends with a marker on stdout, so that a wait is for that command's end.
say() {
	local ends=$2
	printf '%s\nversion\n' "$1" >&3
	wait_until 600 '[ "$(grep -c "^gpurent " "$TMP/out")" -ge $ends ]' ||
		fail "the shell did not finish '$1': $(cat "$TMP/err")"
}

say "ls -o json" 1
ERR=$(cat "$TMP/err")
check "the first ls says the database is not there: $ERR" \
	'grep -q "sim: cannot connect to the PostgreSQL state database.*\"later\" does not exist" <<<"$ERR"'

psql_ -c "CREATE DATABASE later" || fail "CREATE DATABASE"
said=$(wc -l <"$TMP/err")
say "ls -o json" 2
say "costs -o json" 3
ERR=$(tail -n +$((said + 1)) "$TMP/err")
check "once it is, the same shell's next commands open it: $ERR" '[ -z "$ERR" ]'
OUT=$(sed -n '/^gpurent /,$p' "$TMP/out" | sed 1d)
check "ls listed none, costs counted nothing: $OUT" \
	'jq -se ".[0] == [] and .[1].burn_hour == 0" <<<"$(grep -v "^gpurent " <<<"$OUT")" >/dev/null'
OUT=$(psql "$later" -qAtX -c "SELECT count(*) FROM schema_version" 2>&1)
check "and the state's schema is in the new database: $OUT" '[ "$OUT" -ge 1 ]'

exec 3>&-
wait_until 300 '! kill -0 $shell 2>/dev/null' || fail "the shell did not end at the end of its input"
wait $shell
rc=$?
check "the shell ended with the status of the one command that failed, the first ls ($rc)" \
	'[ $rc = 1 ]'

# The exporter, started before its database is made: the simulator's lane and the snapshot's
# ledger figures come once it is.
expect_ok g config set state.url "${GPURENT_TEST_PG_URL%/gpurent}/later2"
start_exporter
wait_scrape '^gpurent_provider_up\{provider="sim"\} 0$'
check "the simulator is down while the database is not there" \
	'! grep -q "^gpurent_burn_rate" <<<"$OUT"'
psql_ -c "CREATE DATABASE later2" || fail "CREATE DATABASE later2"
wait_scrape '^gpurent_provider_up\{provider="sim"\} 1$'
wait_scrape '^gpurent_burn_rate_dollars_per_hour 0'
check "then up, with the ledger's figures" 'grep -q "^gpurent_provider_up{provider=\"sim\"} 1$" <<<"$OUT"'
pass
