#!/bin/bash
# Issue 29.1 and 29.4: `gpurent prepay ID --term 1mo` on vast (`gpurent sim serve --dialect
# vast`): it says the discount and that the payment is not refunded, asks (refused without
# --yes off a terminal), pays a month's price at vast's month discount (the sim's 20 %), and
# the ledger records the payment as a term that stops the instance's hourly price; the
# provider's bill shows the payment whole on its day, and `costs --check` still matches.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"

start_serve vast --api-key kv
use_provider vast kv
expect_ok g config set providers vast
rent_cheapest --disk 20
expect_ok serve_g vast sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\"" >/dev/null'
expect_ok g ls -o json
price=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .price_hour * 1000000 | round' <<<"$OUT")

expect_rc 2 g prepay "$id" --term 1mo </dev/null
check "off a terminal without --yes: nothing paid" '[[ "$ERR" == *"nothing paid"* ]] && [ "$(sqlite3 "$DB" "SELECT count(*) FROM ledger WHERE kind = 3")" = 0 ]'

# A month ahead at 20 % off: (price × 0.8, to the micro-dollar) × 720 h.
want=$(( (price * 8000 + 5000) / 10000 * 720 ))
expect_ok g prepay "$id" --term 1mo --yes -o json
# figure: prepay-amount
check "prepaid a month: $want micro-dollars at 20 % off ($OUT)" \
	'[ "$(jq -r ".amount * 1000000 | round" <<<"$OUT")" = "$want" ] && [ "$(jq -r .discount_pct <<<"$OUT")" = 20 ]'
check "it said the discount and that it is not refunded" \
	'[[ "$ERR" == *"20.00% off"* ]] && [[ "$ERR" == *"not refunded"* ]]'
paid_at=$(date +%s)
# vast's month is of the compute price (dph_base), the instance's price is all in (dph_total):
# the payment covers at least the 720 h (2592000 s) it was priced for, from now.
check "it covers at least the month, paid until now + covered_s ($OUT)" \
	'[ "$(jq -r .covered_s <<<"$OUT")" -ge 2592000 ] && [ $(( $(jq -r ".paid_until | fromdate" <<<"$OUT") - $(jq -r .covered_s <<<"$OUT") )) -ge $((paid_at - 5)) ] && [ $(( $(jq -r ".paid_until | fromdate" <<<"$OUT") - $(jq -r .covered_s <<<"$OUT") )) -le "$paid_at" ]'
expect_ok g ls -o json
check "the hourly price stopped: the open compute segment bills 0 under the term" \
	'[ "$(sqlite3 "$DB" "SELECT group_concat(rate_hour) FROM ledger WHERE kind = 0 AND end_ts = 0")" = 0 ] && [ "$(sqlite3 "$DB" "SELECT count(*) FROM ledger WHERE kind = 3")" = 1 ]'

# The bill: the payment whole on today's row, the ledger's term the same within a cent.
wait_until 30 '[ "$(date +%s)" -gt "$paid_at" ]'
expect_ok g costs --check -o json
check_matches
day=$(date -u +%F)
# figure: prepay-bill
check "the bill has the payment whole today ($(bill_row "$id" "$day" billed))" \
	'[ "$(bill_row "$id" "$day" billed)" -ge "$want" ] && [ "$(bill_row "$id" "$day" ledger)" -ge $((want - 10000)) ]'
pass
