#!/bin/bash
# Issue 29.3: costs.source = provider makes `costs` count the provider's bill where it has one
# and it differs from the ledger, and says which source each provider's figures came from.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bill.sh"

export GPURENT_SIM_TIME=1796086800	# 2026-12-01T01:00:00Z
rent_cheapest
expect_ok g sim advance 2h
expect_ok g sim bill-extra sim:i-000099 1.50
expect_ok g sim bill-extra "$id" 0.25 storage
micros() { jq "$1 * 1000000 | round" <<<"$OUT"; }

expect_ok g costs -o json
check "by default the ledger's figures" 'jq -e ".source == \"ledger\" and .sources == []" <<<"$OUT" >/dev/null'
spent=$(micros .spent)
proj=$(micros .projected_month)
expect_ok g costs --by instance -o json
own=$(jq --arg id "$id" '.rows[] | select(.key == $id) | .spent * 1000000 | round' <<<"$OUT")

expect_ok g config set costs.source provider
expect_ok g costs -o json
# figure: source-provider-spent
check "the bill's 1.50 and 0.25 beyond the ledger count: $(micros .spent) = $spent + 1750000" \
	'[ "$(micros .spent)" = $((spent + 1750000)) ] && [ "$(micros .spent_today)" = $((spent + 1750000)) ] && [ "$(micros .spent_month)" = $((spent + 1750000)) ] && [ "$(micros .projected_month)" = $((proj + 1750000)) ]'
check "and say where they came from" \
	'jq -e ".source == \"provider\" and .sources == [{\"provider\":\"sim\",\"source\":\"provider\",\"instance_days\":2,\"error\":null}]" <<<"$OUT" >/dev/null'
expect_ok g costs --by instance -o json
# figure: source-provider-lines
check "by instance: sim:i-000099 at 1.50, $id at $own + 0.25" \
	'[ "$(jq ".rows[] | select(.key == \"sim:i-000099\") | .spent * 1000000 | round" <<<"$OUT")" = 1500000 ] && [ "$(jq --arg id "$id" ".rows[] | select(.key == \$id) | .spent * 1000000 | round" <<<"$OUT")" = $((own + 250000)) ]'
check "largest first" '[ "$(jq -r ".rows[0].key" <<<"$OUT")" = sim:i-000099 ]'
expect_ok g costs
check "the table says so" '[[ "$OUT" == *"sim: its bill counts where it differs from the ledger (2 instance-days"* ]]'
expect_ok g config set costs.source bill
expect_rc 2 g costs
pass
