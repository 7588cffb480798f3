#!/usr/bin/env bash
# The state in a PostgreSQL database (GPURENT_STATE_URL; issue 31): launch, ls, stop and
# costs answer as they do with the SQLite file, and what they record is in the server's
# database, not in the file (which keeps only the simulator's world).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z
start_pg

# One day of one instance, its answers in $1.*: seed 42's first on-demand H100 offer,
# sim:o-000075 at $1.89/h (t006), launched, run, stopped.
scenario() {
	local id
	expect_ok g launch sim:o-000075 --label team
	id=$OUT
	expect_ok g sim advance 2m
	expect_ok g sim advance 1h
	expect_ok g ls -o json
	printf '%s\n' "$OUT" >"$1.ls"
	expect_ok g costs -o json
	printf '%s\n' "$OUT" >"$1.costs"
	expect_ok g stop --no-wait "$id"
	expect_ok g sim advance 1m
	expect_ok g sim advance 1h
	expect_ok g costs -o json --by label
	printf '%s\n' "$OUT" >"$1.by-label"
}

scenario "$TMP/file"
GPURENT_HOME=$TMP/home-pg GPURENT_STATE_URL=$GPURENT_TEST_PG_URL scenario "$TMP/pg-run"

OUT=$(cat "$TMP/pg-run.costs")
# 3660 s at $1.89/h: 1.89 * 3660 / 3600 = 1.9215 (t006 works out the rest).
check "spent on PostgreSQL: 3660 s at \$1.89/h is \$1.9215" \
	'jq -e ".spent == 1.9215 and .burn_hour == 1.89" <<<"$OUT" >/dev/null'
for f in ls costs by-label; do
	check "$f answers as with the SQLite file" 'cmp -s "$TMP/file.$f" "$TMP/pg-run.$f"'
done
rows="SELECT instance_id, label, kind, rate_hour, start_ts, end_ts, currency FROM ledger ORDER BY id"
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "$rows" 2>&1)
check "the ledger's rows (provisioning, compute, storage) are in the server's database" \
	'[ "$(wc -l <<<"$OUT")" = 3 ] && [ "$OUT" = "$(sqlite3 "$DB" "$rows")" ]'
OUT=$(sqlite3 "$TMP/home-pg/state.db" "SELECT count(*) FROM ledger" 2>&1)
check "and not in the file" '[ "$OUT" = 0 ]'

# The lock wait's bound goes with the connection's options, and the URL's own options are kept
# after it: a search_path that names no schema leaves no table to find.
GPURENT_HOME=$TMP/home-pg GPURENT_STATE_URL="$GPURENT_TEST_PG_URL?options=-c%20search_path%3Dnowhere" \
	expect_rc 1 g events
check "the URL's own options are kept: $ERR" '[[ $ERR == *"no schema has been selected"* ]]'
long=$(printf 'a%.0s' $(seq 1100))
GPURENT_HOME=$TMP/home-pg GPURENT_STATE_URL="$GPURENT_TEST_PG_URL?options=-c%20search_path%3D$long" \
	expect_rc 2 g events
check "options too long to keep whole are refused, not cut: $ERR" '[[ $ERR == *"options are longer than"* ]]'

# One connection a command: the simulator bills through the session's own (each is a server
# process started; a second one was most of what `ls` took over SQLite's time).
psql -q "$GPURENT_TEST_PG_URL" -c "ALTER SYSTEM SET log_connections = on" \
	-c "SELECT pg_reload_conf()" >/dev/null || fail "log_connections"
connections() {
	grep -a -c "connection authorized" "$GPURENT_TEST_PG_LOG" || true
}
wait_until 50 'psql -Atc "SHOW log_connections" "$GPURENT_TEST_PG_URL" | grep -qx on' || fail "not reloaded"
for cmd in "ls" "costs" "launch sim:o-000075 --label again"; do
	before=$(connections)
	# shellcheck disable=SC2086 # the command's words
	GPURENT_HOME=$TMP/home-pg GPURENT_STATE_URL=$GPURENT_TEST_PG_URL expect_ok g $cmd
	check "'$cmd' opened one connection to the server" '[ "$(($(connections) - before))" = 1 ]'
done
pass
