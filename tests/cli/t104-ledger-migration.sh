#!/bin/bash
# A state database written before currencies (no ledger.currency column) is migrated in
# place: its rows read back as US dollars, as they always were.
. "$(dirname "$0")/lib.sh"

mkdir -p "$GPURENT_HOME"
now=$(date +%s)
sqlite3 "$DB" "
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE ledger(id INTEGER PRIMARY KEY, instance_id TEXT NOT NULL, provider TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '', gpu TEXT NOT NULL DEFAULT '', kind INTEGER NOT NULL,
  rate_hour INTEGER NOT NULL, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL DEFAULT 0,
  gone INTEGER NOT NULL DEFAULT 0);
INSERT INTO ledger(instance_id, provider, kind, rate_hour, start_ts, end_ts)
  VALUES('vast:1', 'vast', 0, 2000000, $((now - 7200)), $((now - 3600)));" || fail "old schema"
expect_ok g -o json costs
check "old rows are dollars" '[ "$(jq -r ".currency + \" \" + (.spent|tostring)" <<<"$OUT")" = "USD 2" ]'
check "one currency" '[ "$(jq ".currencies | length" <<<"$OUT")" = 1 ]'
check "the column was added with USD" \
    '[ "$(sqlite3 "$DB" "SELECT currency FROM ledger")" = USD ]'
pass
