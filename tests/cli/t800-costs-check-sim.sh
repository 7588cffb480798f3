#!/bin/bash
# Issue 29.3: `costs --check` against the built-in simulator's own bill. The simulator bills
# what it wrote into the ledger, so all is well until `sim bill-extra` makes it bill what
# gpurent never saw: an instance the ledger lacks, a stopped instance's storage. Figures by
# hand from the ledger's one compute segment (rate, start), cut at midnight.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bill.sh"

midnight=1796083200	# 2026-12-01T00:00:00Z
export GPURENT_SIM_TIME=$((midnight - 3600))
rent_cheapest
expect_ok g sim advance 2h
now=$((midnight + 3600))

expect_ok g costs --check -o json
check "all is well: two days, both match, no difference" \
	'jq -e "(.rows | length) == 2 and .differences == 0 and all(.rows[]; .cause == \"match\")" <<<"$OUT" >/dev/null'
row() {	# DAY FIELD [INSTANCE]: bill_row of the instance (default: the one rented)
	bill_row "${3:-$id}" "$1" "$2"
}
read -r rate start <<<"$(sqlite3 -separator ' ' "$DB" "SELECT rate_hour, start_ts FROM ledger WHERE instance_id = '$id' AND kind = 0")"
check "one compute segment, started before midnight ($start)" '[ "$start" -lt "$midnight" ]'
# money_accrue: rate x seconds / 3600, rounded to the nearest micro-dollar; the day after
# midnight gets the rest of the whole run's accrual.
day1=$(((rate * (midnight - start) + 1800) / 3600))
day2=$(((rate * (now - start) + 1800) / 3600 - day1))
# figure: check-ledger check-billed
check "2026-11-30: ledger $(row 2026-11-30 ledger) = billed $(row 2026-11-30 billed) = $day1" \
	'[ "$(row 2026-11-30 ledger)" = "$day1" ] && [ "$(row 2026-11-30 billed)" = "$day1" ]'
check "2026-12-01: ledger $(row 2026-12-01 ledger) = billed $(row 2026-12-01 billed) = $day2" \
	'[ "$(row 2026-12-01 ledger)" = "$day2" ] && [ "$(row 2026-12-01 billed)" = "$day2" ]'
expect_ok g costs --check
check "the table says so" '[[ "$OUT" == *"sim: 2 instance-days match, 0 differ"* ]]'

# The provider bills an instance gpurent never saw, and the running one's disk beyond its own.
expect_ok g sim bill-extra sim:i-000099 1.50
expect_ok g sim bill-extra "$id" 0.25 storage
expect_rc 14 g costs --check -o json
# figure: check-difference check-unseen check-storage
check "sim:i-000099 is named: billed 1.50 that the ledger does not have" \
	'[ "$(row 2026-12-01 ledger sim:i-000099)" = null ] && [ "$(row 2026-12-01 billed sim:i-000099)" = 1500000 ] && [ "$(row 2026-12-01 difference sim:i-000099)" = 1500000 ] && [ "$(row 2026-12-01 cause sim:i-000099)" = unseen ]'
check "$id: billed 0.25 of storage beyond the ledger ($(row 2026-12-01 billed) against $day2)" \
	'[ "$(row 2026-12-01 billed)" = $((day2 + 250000)) ] && [ "$(row 2026-12-01 difference)" = 250000 ] && [ "$(row 2026-12-01 billed_storage)" = 250000 ] && [ "$(row 2026-12-01 ledger_storage)" = 0 ] && [ "$(row 2026-12-01 cause)" = storage ]'
check "two differences, the day before still matches" \
	'jq -e ".differences == 2 and .providers[0].matches == 1 and .providers[0].differences == 2" <<<"$OUT" >/dev/null'
expect_rc 14 g costs --check
check "the table names both, with their causes" \
	'[[ "$OUT" == *"sim:i-000099"*"billed an instance the ledger does not have"* ]] && [[ "$OUT" == *"storage billed beyond the ledger"* ]]'

# The tolerance lets a difference of exactly its size pass, not more.
expect_ok g config set costs.check_tolerance 0.25
expect_rc 14 g costs --check -o json
check "0.25 passes at a tolerance of 0.25, 1.50 does not" \
	'jq -e ".differences == 1 and .tolerance == 0.25" <<<"$OUT" >/dev/null'
expect_ok g config set costs.check_tolerance 1.50
expect_ok g costs --check -o json

expect_rc 2 g costs --check --by day

# A provider whose API has no bill says so, and a check of it alone checks nothing.
expect_rc 12 g costs --check -p lambda
check "lambda: no bill, said clearly" '[[ "$ERR" == *"lambda: its API exposes no bill"* ]]'
pass
