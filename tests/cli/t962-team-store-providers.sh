#!/bin/bash
# A team's PostgreSQL state with a provider over the network (issue 31): what gpurent records
# of a provider's answers goes into the team's state, as it goes into the file for one
# person. Before, only the simulator's billing did: vast's observed ledger rows and the
# settling of a launch by its name went into the personal file, so the team's `costs` showed
# a running instance's hour as $0 burn and reconcile called a launch left unsettled foreign.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/pg.sh"
export GPURENT_SIM_TIME=1790000000	# the market holds still between a search and its launch
start_pg
start_serve vast --api-key k
clean=$SERVE_URL
use_provider vast k
export GPURENT_STATE_URL=$GPURENT_TEST_PG_URL
expect_ok g config set providers vast
offer=$(g offers gpu=h100 type=on-demand -n 1 -o ids) || fail "offers"

expect_ok g launch "$offer" --label first -o ids
id=$OUT
expect_ok serve_g vast sim advance 10m
expect_ok g ls -o json
check "listed on the team's state" '[ "$(jq -r ".[0].id" <<<"$OUT")" = "$id" ]'
price=$(jq -r '.[0].price_hour' <<<"$OUT")
expect_ok g costs -o json
check "the running instance's hour is the team's burn: $price/h" \
	'jq -e --argjson p "$price" ".burn_hour == \$p and \$p > 1" <<<"$OUT" >/dev/null'
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT instance_id, kind FROM ledger WHERE end_ts = 0" 2>&1)
check "its open compute row is in the server's database: $OUT" '[ "$OUT" = "$id|0" ]'
OUT=$(sqlite3 "$GPURENT_HOME/state.db" "SELECT count(*) FROM ledger" 2>&1)
check "and nothing in the personal file" '[ "$OUT" = 0 ]'

# A launch killed while its create is held at the provider, which then makes it (t901): the
# next listing that shows the instance by its name settles it in the team's journal.
other=$(g offers gpu=h100 type=on-demand -n 1 -o ids) || fail "offers"
# Only the create is held, by a gate the test opens, so that under load the wait is for it.
gate=$TMP/gate
GPURENT_SERVE_HOLD=$gate start_serve vast --api-key k --fail-match /api/v0/asks/ \
	--log-requests "$TMP/requests"
export GPURENT_VAST_URL=$SERVE_URL
g launch "$other" --label killed -o ids >"$TMP/killed.out" 2>"$TMP/killed.err" &
pid=$!
CLEANUP_HOOKS+=("kill -9 $pid 2>/dev/null")
# Until the create came, or the launch ended without it (then why is in its errors).
created() { grep -q '"path":"/api/v0/asks/' "$TMP/requests" 2>/dev/null; }
wait_until 1200 'created || ! kill -0 $pid 2>/dev/null'
created || fail "the create never came: $(cat "$TMP/killed.err")"
kill -9 "$pid"
wait "$pid" 2>/dev/null
touch "$gate"
export GPURENT_VAST_URL=$clean
wait_until 100 '[ "$(sqlite3 "$(serve_home vast)/state.db" "SELECT count(*) FROM sim_instances")" = 2 ]' || fail "the held create was not made"
expect_ok g ls -o json
check "both instances listed" '[ "$(jq length <<<"$OUT")" = 2 ]'
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT count(*) FROM launch_journal WHERE settled = 0 AND instance_id = ''" 2>&1)
check "no launch left unsettled in the team's journal" '[ "$OUT" = 0 ]'
expect_ok g reconcile -o json
check "reconcile finds nothing foreign" '! grep -q foreign <<<"$OUT"'
pass
