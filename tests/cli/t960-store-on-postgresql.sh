#!/usr/bin/env bash
# The store's CLI tests again on PostgreSQL (issue 31, item 5): a set of the tests here that
# exercise the store (costs and the ledger, budgets, audit, the watcher's events, groups)
# and never read the SQLite file themselves, each with GPURENT_STATE_URL naming a
# database of its own on one server started for them all. Each must pass, and must have
# used its database (its schema is there), or this test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg

# Chosen for what they cover and for time (the whole set about 60 s on a 2-core machine at
# load 20): the tests that check the file itself with sqlite3 cannot run here.
tests=(
	t006-costs.sh
	t010-budget.sh
	t081-audit.sh
	t078-watch-events.sh
	t087-group-budget-dry-run.sh
	t804-costs-source-provider.sh
)
failed=()
for t in "${tests[@]}"; do
	db=${t%%-*}
	psql -q "$GPURENT_TEST_PG_URL" -c "CREATE DATABASE $db" || fail "CREATE DATABASE $db"
	url=${GPURENT_TEST_PG_URL%/gpurent}/$db
	start=$(date +%s%N)
	if ! GPURENT_STATE_URL=$url bash "$SRCDIR/tests/cli/$t" >"$TMP/$db.log" 2>&1; then
		sed "s/^/$db: /" "$TMP/$db.log" >&2
		failed+=("$t")
	elif [ "$(psql "$url" -Atc 'SELECT count(*) FROM schema_version' 2>&1)" != 1 ]; then
		echo "$t: passed without making its PostgreSQL database's schema" >&2
		failed+=("$t")
	fi
	echo "$t on PostgreSQL: $((($(date +%s%N) - start) / 1000000)) ms" >&2
done
check "every test of the set passes on PostgreSQL (failed: ${failed[*]:-none})" \
	'[ ${#failed[@]} = 0 ]'
pass
