#!/bin/bash
# A team's state behind PgBouncer (issue 31: "on the database teams already operate"). The
# connection bounds its lock waits with a startup option, which PgBouncer refuses ("unsupported
# startup parameter: options"), so a team whose database sits behind one could not connect at
# all. Now such a connection is made again without it and sets the bound with a SET; a direct
# connection still needs no statement of its own for it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
start_pgbouncer session
# Every statement of a new connection into the server's log, to see which set the bound.
psql "$GPURENT_TEST_PG_URL" -qAtc "ALTER DATABASE gpurent SET log_statement = 'all'" ||
	fail "log_statement"
sets() { grep -c "statement: SET lock_timeout = '10s'" "$GPURENT_TEST_PG_LOG"; }

export GPURENT_STATE_URL=$GPURENT_TEST_PG_URL
expect_ok g ls
check "a direct connection sends no SET: its option bounds the waits" '[ "$(sets)" = 0 ]'

export GPURENT_STATE_URL=$GPURENT_TEST_PGBOUNCER_URL
offer=$(g offers -n 1 -o ids) || fail "offers"
expect_ok g launch "$offer" --label pooled -o ids
id=$OUT
check "the pooled connection set the lock timeout itself" '[ "$(sets)" -ge 1 ]'
check "PgBouncer refused the option first" \
	'grep -q "unsupported startup parameter: options" "$GPURENT_TEST_PGBOUNCER_LOG"'
expect_ok g ls -o json
check "the launch listed through the pooler" '[ "$(jq -r ".[0].id" <<<"$OUT")" = "$id" ]'
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT instance_id FROM launch_journal WHERE settled = 1" 2>&1)
check "its journal row is in the server's database: $OUT" '[ "$OUT" = "$id" ]'
expect_ok g costs -o json
check "costs through the pooler" 'jq -e ".burn_hour != null" <<<"$OUT" >/dev/null'

# Options of the URL's own: PgBouncer cannot take them either, and says so.
expect_rc 1 env GPURENT_STATE_URL="$GPURENT_TEST_PGBOUNCER_URL?options=-cstatement_timeout%3D60s" \
	"$GPURENT" ls
check "the pooler's refusal is told: $ERR" \
	'[[ "$ERR" == *"cannot connect to the PostgreSQL state database"*"unsupported startup parameter: options"* ]]'
pass
