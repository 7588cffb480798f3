# pg.sh - for the tests of the state in PostgreSQL (issue 31): source after lib.sh.
#
#   start_pg [--password]
#               a PostgreSQL server of the test's own (tests/pg/server) on $TMP/pg, stopped
#               at the end; GPURENT_TEST_PG_URL names its database gpurent (--password: and
#               GPURENT_TEST_PG_PASSWORD_URL one whose role must give GPURENT_TEST_PG_PASSWORD)
start_pg() {
	local server=$SRCDIR/tests/pg/server
	"$server" start "$TMP/pg" "$@" || fail "the PostgreSQL server did not start"
	CLEANUP_HOOKS+=("\"$server\" stop \"$TMP/pg\"")
	. "$TMP/pg/env"
}
