#!/bin/bash
# Issue 26 item 2: `gpurent reconcile` against `gpurent sim serve --dialect vast`. An instance
# made through the provider's API (not gpurent) is foreign, with its price and age; a stopped
# one bills its storage (a month of 730 hours at its rate); one destroyed through the API
# behind gpurent's back is a local record the provider no longer has. --adopt then bills the
# foreign one from its start in `costs`; --destroy asks, refuses without a terminal, and
# destroys with --yes.
#
# The provider's clock is fixed two hours back (GPURENT_SIM_TIME, moved only by `sim
# advance`): what it creates is dated then, so its age and its adopted spend are two hours
# and the seconds since, while the ledger of a real provider runs on the wall clock.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

t0=$(($(date +%s) - 7200))
GPURENT_SIM_TIME=$t0 start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast
api() {
	curl -sf -X "$1" -H "Authorization: Bearer test-key-vast" -H 'Content-Type: application/json' \
	    ${3:+-d "$3"} "$SERVE_URL$2"
}

expect_ok g offers type=on-demand -o json -n 3
oid=$(jq -r '.[0].id' <<<"$OUT")
per_gb_month=$(jq -r '.[0].storage_gb_month' <<<"$OUT")
other=$(jq -r '.[1].id' <<<"$OUT")
third=$(jq -r '.[2].id' <<<"$OUT")

expect_ok g launch "$oid" --disk 20 --label ours
ours=$OUT
expect_ok g launch "$third" --label doomed
doomed=$OUT
# (a) One made in the provider's console: its API, not gpurent.
made=$(api PUT "/api/v0/asks/${other#vast:}/" '{"image":"pytorch","disk":20,"label":"console"}') ||
	fail "create through the API"
foreign=vast:$(jq -r .new_contract <<<"$made")
expect_ok serve_g vast sim advance 10m
# The provider's own words: its price per hour and when it was created.
listed=$(api GET /api/v0/instances/) || fail "list through the API"
rate=$(jq --argjson n "${foreign#vast:}" '.instances[] | select(.id == $n) | .dph_total * 1000000 | round' <<<"$listed")
created=$(jq --argjson n "${foreign#vast:}" '.instances[] | select(.id == $n) | .start_date' <<<"$listed")
check "the provider dates it at its clock's start ($created = $t0)" '[ "$created" = "$t0" ]'

before=$(date +%s)
expect_ok g reconcile -o json
after=$(date +%s)
check "only the foreign instance is found ($(jq -c 'map(.id)' <<<"$OUT"))" \
	'[ "$(jq -c "map(.id)" <<<"$OUT")" = "[\"$foreign\"]" ]'
row=$(jq -c --arg id "$foreign" '.[] | select(.id == $id)' <<<"$OUT")
check "foreign, in dollars: $row" \
	'jq -e ".findings == [\"foreign\"] and .currency == \"USD\" and .label == \"console\" and .state == \"running\"" <<<"$row" >/dev/null'
# figure: reconcile-price
check "its price is the provider's, $rate micro-dollars an hour" \
	'[ "$(jq ".price_hour * 1000000 | round" <<<"$row")" = "$rate" ]'
# figure: reconcile-age
age=$(jq .age_s <<<"$row")
check "its age is the time since it was created: $age in [$((before - t0)), $((after - t0))]" \
	'[ "$age" -ge $((before - t0)) ] && [ "$age" -le $((after - t0)) ]'
expect_ok g reconcile
check "the table names it foreign" 'grep -q "^$foreign .* foreign " <<<"$OUT"'
expect_ok g reconcile -o ids
check "-o ids lists its id" '[ "$OUT" = "$foreign" ]'

# (b) A stopped instance bills its storage: 20 GB at the offer's price per GB-month over 730
# hours, rounded to the micro-dollar, for 730 hours (0.2 x 20 / 730 = 0.005479 -> 5479;
# x 730 = 3999670 micro-dollars).
storage_hour=$(jq -n "$per_gb_month * 20 / 730 * 1000000 | round")
month=$((storage_hour * 730))
expect_ok g stop --no-wait "$ours"
expect_ok serve_g vast sim advance 10m
# (c) And one destroyed through the API, behind gpurent's back, after gpurent saw it run.
# A listing closes only the records begun before the second it was asked in (one begun in
# that second may be newer than the list): let the wall clock pass the second the first
# reconcile saw it run in.
wait_until 30 '[ "$(date +%s)" -gt "$after" ]' || fail "the clock did not move past $after"
api DELETE "/api/v0/instances/${doomed#vast:}/" >/dev/null || fail "destroy through the API"
expect_ok g reconcile -o json
check "three findings: $(jq -c 'map([.id, .findings])' <<<"$OUT")" '[ "$(jq length <<<"$OUT")" = 3 ]'
row=$(jq -c --arg id "$ours" '.[] | select(.id == $id)' <<<"$OUT")
check "the stopped one bills its storage: $row" \
	'jq -e ".findings == [\"storage\"] and .state == \"stopped\"" <<<"$row" >/dev/null'
# figure: reconcile-storage-month
check "a month of its storage is $month micro-dollars" \
	'[ "$(jq ".storage_month * 1000000 | round" <<<"$row")" = "$month" ]'
row=$(jq -c --arg id "$doomed" '.[] | select(.id == $id)' <<<"$OUT")
check "the destroyed one is a record the provider no longer has: $row" \
	'jq -e ".findings == [\"vanished\"] and .label == \"doomed\" and .gone_at != null and .price_hour == null and .age_s == null and .storage_month == null" <<<"$row" >/dev/null'
check "a foreign instance shows no storage bill" \
	'jq -e --arg id "$foreign" ".[] | select(.id == \$id) | .storage_month == null" <<<"$OUT" >/dev/null'

# --adopt: its ledger from its start, two hours back; costs counts them.
expect_ok g costs --by instance -o json
seen=$(jq --arg id "$foreign" '.rows[] | select(.key == $id) | .spent * 1000000 | round' <<<"$OUT")
check "before adopting, costs counts it from when gpurent first saw it ($seen)" \
	'[ "$seen" -lt $((rate * 600 / 3600)) ]'
expect_ok g reconcile --adopt "$foreign"
check "--adopt prints the id" '[ "$OUT" = "$foreign" ]'
check "and says from when it bills" 'grep -q "adopted $foreign" <<<"$ERR"'
before=$(date +%s)
expect_ok g costs --by instance -o json
after=$(date +%s)
spent=$(jq --arg id "$foreign" '.rows[] | select(.key == $id) | .spent * 1000000 | round' <<<"$OUT")
# figure: reconcile-adopt-spend
least=$(((rate * (before - t0) + 1800) / 3600 - 1))
most=$(((rate * (after - t0) + 1800) / 3600 + 1))
check "adopted, it has billed $rate an hour since $t0: $spent in [$least, $most]" \
	'[ "$spent" -ge "$least" ] && [ "$spent" -le "$most" ]'
expect_ok g reconcile -o json
check "adopted, it is no longer foreign" \
	'[ "$(jq --arg id "$foreign" "[.[] | select(.id == \$id)] | length" <<<"$OUT")" = 0 ]'
expect_rc 13 g reconcile --adopt "$ours"
check "gpurent's own cannot be adopted" 'grep -q "launched through gpurent" <<<"$ERR"'

# --destroy: refused without a terminal and without --yes, then through destroy's path.
expect_rc 2 g reconcile --destroy "$ours" </dev/null
check "a clear refusal" 'grep -q "refusing to destroy without --yes" <<<"$ERR"'
expect_ok g -o json show "$ours"
check "nothing destroyed" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_rc 13 g reconcile --destroy "$foreign" --yes
check "an adopted running one is not reconcile's to destroy" 'grep -q "gpurent destroy" <<<"$ERR"'
expect_ok g reconcile --destroy "$ours" --yes
check "--destroy prints the id" '[ "$OUT" = "$ours" ]'
listed=$(api GET /api/v0/instances/) || fail "list through the API"
check "the provider no longer has it" \
	'[ "$(jq --argjson n "${ours#vast:}" "[.instances[] | select(.id == \$n)] | length" <<<"$listed")" = 0 ]'
expect_ok g reconcile -o json
check "destroyed through gpurent, it is no finding ($(jq -c 'map(.id)' <<<"$OUT"))" \
	'[ "$(jq -c "map(.id)" <<<"$OUT")" = "[\"$doomed\"]" ]'
expect_rc 2 g reconcile --yes
pass
