#!/bin/bash
# A prepayment goes through the launch door (t915), but it launches nothing: in a team, bob
# prepaying alice's instance leaves it hers. `ls` says USER alice; the term is bob's in the
# ledger (he paid it: `costs --by user` gives him the lump, as his admission counted it); what
# the instance bills after the term is alice's; and an instance gpurent never launched stays
# foreign to `reconcile` when bob prepays it. A team profile on SQLite (as t943), vast through
# `gpurent sim serve` (as t823), whose ledger runs on the wall clock.
# figure: prepay-by-user
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key kv
use_provider vast kv
expect_ok g config set providers vast
expect_ok g config set team.name ml
expect_ok g config set team.user alice
expect_ok g offers type=on-demand -n 2 -o ids
mapfile -t offers <<<"$OUT"
check "two offers (${offers[*]})" '[ ${#offers[@]} = 2 ]'
expect_ok g launch "${offers[0]}" --label hers -o ids
id=$OUT
# One made in the provider's console: its API, not gpurent.
made=$(curl -sf -X PUT -H "Authorization: Bearer kv" -H 'Content-Type: application/json' \
	-d '{"image":"pytorch","disk":10,"label":"console"}' \
	"$SERVE_URL/api/v0/asks/${offers[1]#vast:}/") || fail "create through the API"
foreign=vast:$(jq -r .new_contract <<<"$made")
expect_ok serve_g vast sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\"" >/dev/null'
expect_ok g ls -o json
price=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .price_hour * 1000000 | round' <<<"$OUT")
foreign_of() { jq -c '[.[] | select(.findings | index("foreign")) | .id]' <<<"$1"; }
expect_ok g reconcile -o json
check "reconcile: the console's instance is foreign ($(foreign_of "$OUT"))" \
	'[ "$(foreign_of "$OUT")" = "[\"$foreign\"]" ]'

# bob pays 100 micro-dollars ahead on alice's instance: a term of a few seconds.
expect_ok g config set team.user bob
expect_ok g prepay "$id" 0.0001 --yes -o json
until=$(jq -r '.paid_until | fromdate' <<<"$OUT")
check "paid 0.0001 ($OUT)" '[ "$(jq -r ".amount * 1000000 | round" <<<"$OUT")" = 100 ]'
run sqlite3 "$DB" "SELECT who || ' ' || team FROM ledger WHERE kind = 3"
check "the ledger's term is bob's, of ml ($OUT)" '[ "$OUT" = "bob ml" ]'
expect_ok g ls -o json
check "ls: the instance is still alice's" \
	'[ "$(jq -r --arg id "$id" ".[] | select(.id == \$id) | .user" <<<"$OUT")" = alice ]'

# Past the term the instance bills by the hour again, on alice's account.
wait_until 300 '[ "$(date +%s)" -gt $((until + 1)) ]'
expect_ok g ls
check "ls: USER alice ($OUT)" 'grep -q "^$id .* alice$" <<<"$OUT"'
run sqlite3 "$DB" "SELECT who || ' ' || start_ts FROM ledger WHERE instance_id = '$id' AND kind = 0 AND end_ts = 0 AND rate_hour = $price"
check "the compute after the term is alice's ($OUT)" '[ "${OUT% *}" = alice ]'
billed_from=${OUT#* }
# What she billed by the hour before the payment (a second or so), in micro-dollar-seconds.
run sqlite3 "$DB" "SELECT coalesce(sum(rate_hour * (end_ts - start_ts)), 0) FROM ledger WHERE who = 'alice' AND kind = 0 AND end_ts != 0"
before_pay=$OUT
t0=$(date +%s)
expect_ok g costs --by user -o json
t1=$(date +%s)
# bob: the lump he paid, 0.0001 (100 micro-dollars), nothing by the hour. alice: her price by
# the hour, what she billed before the payment, and at her price the seconds since the term
# ended, between t0 and t1 (when costs read its clock), to the micro-dollar either way.
row() { jq -r --arg k "$1" ".rows[] | select(.key == \$k) | .$2 * 1000000 | round" <<<"$OUT"; }
check "costs --by user: bob spent 0.0001 at 0/h ($(jq -c .rows <<<"$OUT"))" \
	'[ "$(row bob spent)" = 100 ] && [ "$(row bob burn_hour)" = 0 ]'
lo=$(( (before_pay + price * (t0 - billed_from)) / 3600 - 1 ))
hi=$(( (before_pay + price * (t1 - billed_from)) / 3600 + 1 ))
check "costs --by user: alice at $price micro-dollars/h, spent $lo..$hi" \
	'[ "$(row alice burn_hour)" = "$price" ] && [ "$(row alice spent)" -ge "$lo" ] && [ "$(row alice spent)" -le "$hi" ]'

# bob prepays the console's instance: it stays foreign, nobody's.
expect_ok g prepay "$foreign" 0.0001 --yes
expect_ok g reconcile -o json
check "reconcile: still foreign after bob's payment ($(foreign_of "$OUT"))" \
	'[ "$(foreign_of "$OUT")" = "[\"$foreign\"]" ]'
expect_ok g ls -o json
check "ls: the console's instance has no user" \
	'[ "$(jq -r --arg id "$foreign" ".[] | select(.id == \$id) | .user" <<<"$OUT")" = "" ] || [ "$(jq -r --arg id "$foreign" ".[] | select(.id == \$id) | .user" <<<"$OUT")" = null ]'
pass
