#!/usr/bin/env bash
# gpurent state migrate (issue 31): a personal state file with a ledger, samples and a job,
# made by gpurent against the simulator, copied into a team's PostgreSQL database;
# costs and audit give the same figures on it as on the file; each table's rows are said;
# and a second migrate into the now-full database is refused, naming what it holds,
# unless --replace.
# figure: state-migrated
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z
start_pg
start_sshd

# seed 42's first on-demand H100 offer, sim:o-000075 at $1.89/h (t006): launched, its GPU
# sampled twice (metrics), a job run on it, stopped an hour on.
expect_ok g launch sim:o-000075 --label team
id=$OUT
expect_ok g sim advance 2m
expect_ok g metrics "$id"
expect_ok g run "$id" -- true
expect_ok g sim advance 1h
expect_ok g metrics "$id"
expect_ok g stop --no-wait "$id"
expect_ok g sim advance 1m
expect_ok g sim advance 1h
for c in costs audit; do
	expect_ok g "$c" -o json
	printf '%s\n' "$OUT" >"$TMP/file.$c"
done

expect_ok g state migrate --to "$GPURENT_TEST_PG_URL" -o json
copied=$OUT
rows() { jq -r --arg t "$1" '.[] | select(.table == $t) | .rows' <<<"$copied"; }
# The ledger's three segments (provisioning, compute, storage), the two samples, the job.
check "the ledger's 3 rows copied" '[ "$(rows ledger)" = 3 ]'
check "the 2 samples copied" '[ "$(rows samples)" = 2 ]'
check "the job copied" '[ "$(rows jobs)" = 1 ]'
check "every table the store owns is listed (managed jobs, events, the journal)" \
	'[ "$(rows managed_jobs)" = 0 ] && [ "$(rows events)" = 0 ] && [ "$(rows launch_journal)" = 1 ]'
check "not the simulator's world" '[ -z "$(rows sim_instances)" ]'
for c in audit costs; do
	GPURENT_STATE_URL=$GPURENT_TEST_PG_URL expect_ok g "$c" -o json
	check "$c gives the same figures on PostgreSQL" '[ "$OUT" = "$(cat "$TMP/file.$c")" ]'
done
# 3660 s at $1.89/h (1.9215) and the 3646 s since the stop (3734 s to 7380 s) of storage at
# $0.013014/h (13014 * 3646 / 3600 = 13180.4: 0.01318): 1.93468.
check "spent on PostgreSQL as on the file: \$1.93468" 'jq -e ".spent == 1.93468" <<<"$OUT" >/dev/null'

expect_rc 13 g state migrate --to "$GPURENT_TEST_PG_URL"
check "a second migrate is refused, naming what the target holds" \
	'grep -q "already holds gpurent'"'"'s state (.*ledger: 3" <<<"$ERR" && grep -q -- "--replace" <<<"$ERR"'
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT count(*) FROM ledger" 2>&1)
check "and it wrote nothing" '[ "$OUT" = 3 ]'
expect_ok g state migrate --to "$GPURENT_TEST_PG_URL" --replace -o json
copied=$OUT
GPURENT_STATE_URL=$GPURENT_TEST_PG_URL expect_ok g costs -o json
check "--replace empties the target first, then copies: the same 3 rows, the same costs" \
	'[ "$(rows ledger)" = 3 ] && [ "$OUT" = "$(cat "$TMP/file.costs")" ]'
pass
