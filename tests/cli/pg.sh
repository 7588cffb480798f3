# pg.sh - for the tests of the state in PostgreSQL (issue 31): source after lib.sh.
#
#   start_pg [--password]
#               a PostgreSQL server of the test's own (tests/pg/server) on $TMP/pg, stopped
#               at the end; GPURENT_TEST_PG_URL names its database gpurent (--password: and
#               GPURENT_TEST_PG_PASSWORD_URL one whose role must give GPURENT_TEST_PG_PASSWORD)
#   start_pgbouncer MODE
#               a PgBouncer of the test's own (tests/pg/pgbouncer) in front of that server's
#               database, in pool_mode MODE, stopped at the end:
#               GPURENT_TEST_PGBOUNCER_URL names the database through it
#   team_on_pg NAME...
#               people of team ml on that server, each with a configuration of their own
#               (nothing under the real ~), renting from one provider's world
#               ($TMP/account); `as NAME ARGS...` runs gpurent as one of them
start_pg() {
	local server=$SRCDIR/tests/pg/server
	"$server" start "$TMP/pg" "$@" || fail "the PostgreSQL server did not start"
	CLEANUP_HOOKS+=("\"$server\" stop \"$TMP/pg\"")
	. "$TMP/pg/env"
}

start_pgbouncer() {
	local bouncer=$SRCDIR/tests/pg/pgbouncer
	"$bouncer" start "$TMP/pgbouncer" "$GPURENT_TEST_PG_URL" "$1" || fail "PgBouncer did not start"
	CLEANUP_HOOKS+=("\"$bouncer\" stop \"$TMP/pgbouncer\"")
	. "$TMP/pgbouncer/env"
}

as() {
	local who=$1
	shift
	HOME=$TMP/home-$who XDG_CONFIG_HOME=$TMP/config-$who XDG_DATA_HOME=$TMP/data-$who \
		XDG_CACHE_HOME=$TMP/cache-$who "$GPURENT" "$@"
}

team_on_pg() {
	local who
	unset GPURENT_HOME
	export XDG_STATE_HOME=$TMP/account
	for who in "$@"; do
		expect_ok as "$who" config set state.url "$GPURENT_TEST_PG_URL"
		expect_ok as "$who" config set team.name ml
		expect_ok as "$who" config set team.user "$who"
	done
}
