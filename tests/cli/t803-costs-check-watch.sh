#!/bin/bash
# Issue 29.3: the watcher checks yesterday's bill once a day on each provider's clock, and
# raises an event for an instance and day that differs beyond costs.check_tolerance.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bill.sh"

bill_events() {
	sqlite3 "$DB" "SELECT instance_id || ' ' || message FROM events WHERE kind = 'bill-difference' ORDER BY rowid"
}
export GPURENT_SIM_TIME=1796086800	# 2026-12-01T01:00:00Z
rent_cheapest
expect_ok g sim advance 1h
# The provider bills, today, an instance gpurent never saw and a little more of this one.
expect_ok g sim bill-extra sim:i-000042 2.50
expect_ok g sim bill-extra "$id" 0.01
expect_ok g watch --once
check "today is not checked yet: it is not over" '[ -z "$(bill_events)" ]'
expect_ok g sim advance 1d
expect_ok g watch --once
# figure: watch-bill-event
check "the next day: sim:i-000042 named, 2.50 billed where the ledger has nothing; 0.01 within the tolerance ($(bill_events | tr '\n' ';'))" \
	'[ "$(bill_events)" = "sim:i-000042 2026-12-01: billed \$2.50 where the ledger has nothing: billed an instance the ledger does not have" ]'
expect_ok g watch --once
check "once a day" '[ "$(bill_events | wc -l)" = 1 ]'
expect_ok g config set costs.check_tolerance 0
expect_ok g sim bill-extra "$id" 0.000001
expect_ok g sim advance 1d
expect_ok g watch --once
check "a tolerance of 0 lets nothing pass ($(bill_events | tail -1))" \
	'[ "$(bill_events | wc -l)" = 2 ] && [[ "$(bill_events | tail -1)" == "$id 2026-12-02: billed"*"a price that changed" ]]'
pass
