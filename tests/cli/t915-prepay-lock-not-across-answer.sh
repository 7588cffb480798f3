#!/bin/bash
# Issue 30: `gpurent prepay` held the launch lock through its provider's answer, so one slow
# prepayment held every other budgeted launch (up to the lock's two minutes). It is admitted
# now as a launch is (the launch door): the lock covers the budget check and its record in
# flight, and the launches admitted while the provider answers count its lump. A prepayment
# held at the provider (a gate the test opens) does not hold a launch beside it; a second
# prepayment that fits only without the first one's lump is refused meanwhile.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

gate=$TMP/gate
GPURENT_SERVE_HOLD=$gate start_serve vast --api-key kv --fail-match /api/v0/instances/prepay/ \
	--log-requests "$TMP/requests"
use_provider vast kv
expect_ok g config set providers vast

# offers[N], prices[N]: the cheapest on-demand offer now and its price in micro-dollars.
cheapest() {
	expect_ok g offers type=on-demand -o json
	offers[$1]=$(jq -r '.[0].id' <<<"$OUT")
	prices[$1]=$(jq -r '.[0].price_hour * 1000000 | round' <<<"$OUT")
	check "an offer (${offers[$1]} at ${prices[$1]} micro-dollars/h)" '[ "${offers[$1]}" != null ]'
}
cheapest 0
expect_ok g launch "${offers[0]}" --label paid -o ids
id=$OUT
expect_ok serve_g vast sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\"" >/dev/null'
# The offer launched beside the prepayment, chosen now: the market moved with the clock.
cheapest 1

# budget.month: both instances to the end of the month (UTC), one lump of 500 dollars and
# half of another: the launch fits beside the first payment, a second payment does not.
lump=500000000
now=$(date -u +%s)
month_end=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%s)
hours=$(( (month_end - now) / 3600 + 1 ))
budget=$(( (prices[0] + prices[1]) * hours + lump + lump / 2 ))
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.6f\", $budget / 1e6 }")"

g prepay "$id" 500 --yes -o json >"$TMP/prepay" 2>"$TMP/prepay.err" &
prepay=$!
CLEANUP_HOOKS+=("kill $prepay 2>/dev/null")
prepays() { grep -c /api/v0/instances/prepay/ "$TMP/requests" 2>/dev/null; }
wait_until 300 '[ "$(prepays)" = 1 ]'
check "the prepayment is at the provider, held ($(prepays))" '[ "$(prepays)" = 1 ]'

# Bounded well below the lock's two minutes, which the old door made it wait.
g launch "${offers[1]}" --label beside -o ids >"$TMP/launch" 2>"$TMP/launch.err" &
launch=$!
CLEANUP_HOOKS+=("kill $launch 2>/dev/null")
wait_until 300 '! kill -0 $launch 2>/dev/null'
ERR=$(cat "$TMP/launch.err")
check "the launch ended while the prepayment was held" '! kill -0 $launch 2>/dev/null && kill -0 $prepay'
wait $launch
rc=$?
check "and it launched (status $rc)" '[ $rc = 0 ] && [ -s "$TMP/launch" ]'

expect_rc 9 g prepay "$id" 500 --yes
check "a second payment is refused by budget.month, counting the first in flight" \
	'[[ "$ERR" == *"refused by budget.month"* ]]'
check "the first is still held" 'kill -0 $prepay && [ "$(prepays)" = 1 ]'

: >"$gate"
wait $prepay
rc=$?
ERR=$(cat "$TMP/prepay.err")
check "the held prepayment ended well once answered (status $rc)" \
	'[ $rc = 0 ] && [ "$(jq -r ".amount * 1000000 | round" "$TMP/prepay")" = $lump ]'
run sqlite3 "$DB" "SELECT count(*) FROM ledger WHERE kind = 3 AND instance_id = '$id'"
check "the ledger has its term ($OUT)" '[ "$OUT" = 1 ]'
run sqlite3 "$DB" "SELECT count(*) FROM meta WHERE key LIKE 'launch.inflight:%'"
check "nothing is in flight any more ($OUT)" '[ "$OUT" = 0 ]'
pass
