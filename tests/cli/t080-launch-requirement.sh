#!/bin/bash
# Launch by requirement (issue 14 part 3): the matching offers are ranked by all-in price,
# then reliability; a create refused because the offer is gone or full moves on to the next
# candidate, and one request rents exactly one instance (ls, the ledger and the launch
# journal agree). vast, pointed at `gpurent sim serve --fail-launch`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
# A market that holds still: the ranking of the dry run is the order the launch tries.
export GPURENT_SIM_TIME=1790000000

start_serve vast --api-key test-key-vast --fail-launch gone,gone,capacity
use_provider vast test-key-vast

# --dry-run: the candidates in the order they would be tried, nothing rented.
expect_ok g -p vast launch --gpu h100 --count 8 --dry-run -o json
ranked="$OUT"
mapfile -t cand < <(jq -r '.[].id' <<<"$ranked")
check "at least five candidates (${#cand[@]})" '[ ${#cand[@]} -ge 5 ]'
check "all are 8 x H100, on-demand, ranked 1..n" \
	'jq -e "all(.gpus == 8 and (.gpu | startswith(\"H100\")) and .type == \"on-demand\") and ([.[].rank] == [range(1; length + 1)])" <<<"$ranked" >/dev/null'
check "ranked by all-in price, then reliability (higher first)" \
	'jq -e "[.[] | [.all_in_hour, -.reliability]] as \$k | \$k == (\$k | sort)" <<<"$ranked" >/dev/null'
check "all-in is the price plus the disk's storage" \
	'jq -e "all(.all_in_hour == .price_hour + .storage_hour)" <<<"$ranked" >/dev/null'
expect_ok g -p vast launch --gpu h100 --count 8 --dry-run
check "the table names the all-in price" 'grep -q "ALL-IN" <<<"$OUT" && grep -q "${cand[0]}" <<<"$OUT"'
expect_ok g -p vast ls -o json
check "a dry run rents nothing" '[ "$(jq length <<<"$OUT")" = 0 ]'

# Two offers rented away and one full, then the fourth candidate is rented.
expect_ok g -p vast launch --gpu h100 --count 8 -o json
res="$OUT"
check "four attempts: unavailable x3, rented" \
	'[ "$(jq -c "[.attempts[].outcome]" <<<"$res")" = "[\"unavailable\",\"unavailable\",\"unavailable\",\"rented\"]" ]'
check "tried in ranked order" \
	'[ "$(jq -r "[.attempts[].offer_id] | join(\" \")" <<<"$res")" = "${cand[*]:0:4}" ]'
check "the reasons are the provider's: gone twice, then out of capacity" \
	'jq -e "(.attempts[0].reason | test(\"no_such_ask\")) and (.attempts[1].reason | test(\"no_such_ask\")) and (.attempts[2].reason | test(\"resources\"))" <<<"$res" >/dev/null'
check "each failure is said on stderr" \
	'[ "$(grep -c "^gpurent: attempt [123]: .*: unavailable: " <<<"$ERR")" = 3 ] && grep -q "attempt 4: rented ${cand[3]}" <<<"$ERR"'
inst=$(jq -r .instance.id <<<"$res")
check "the instance is of the fourth candidate" '[ "$(jq -r .instance.offer_id <<<"$res")" = "${cand[3]}" ]'

expect_ok g -p vast ls -o json
check "exactly one instance at the provider, the one reported" \
	'[ "$(jq -r "[.[].id] | join(\" \")" <<<"$OUT")" = "$inst" ]'
check "the ledger has that one instance" \
	'[ "$(sqlite3 "$DB" "SELECT group_concat(DISTINCT instance_id) FROM ledger WHERE provider = '\''vast'\''")" = "$inst" ]'
check "the journal: four creates asked, one settled with the instance, three with none" \
	'[ "$(sqlite3 "$DB" "SELECT count(*), sum(instance_id = '\''$inst'\''), sum(instance_id = '\'''\'') FROM launch_journal WHERE provider = '\''vast'\'' AND settled = 1")" = "4|1|3" ]'

# Every attempt fails: exit 7, --attempts bounds the tries, nothing is rented.
start_serve vast --api-key test-key-vast --fail-launch capacity,capacity,capacity
use_provider vast test-key-vast
expect_rc 7 g -p vast launch --gpu h100 --count 8 --attempts 2 -o json
check "two attempts, no instance" \
	'jq -e "(.instance == null) and (.attempts | length == 2) and all(.attempts[]; .outcome == \"unavailable\")" <<<"$OUT" >/dev/null'
check "it says the attempts ran out" 'grep -q "attempts ran out" <<<"$ERR"'
expect_ok g -p vast ls -o json
check "still one instance" '[ "$(jq length <<<"$OUT")" = 1 ]'

# A budget refusal stops the request at the first candidate (exit 9), never the next.
expect_ok g config set budget.day 1
expect_rc 9 g -p vast launch --gpu h100 --count 8 -o json
check "one attempt, failed on the budget" \
	'jq -e "(.attempts | length == 1) and .attempts[0].outcome == \"failed\" and .attempts[0].error == \"budget\"" <<<"$OUT" >/dev/null'
expect_ok g config unset budget.day

# Nothing matches: exit 3, on a real launch as on a dry run.
expect_rc 3 g -p vast launch --gpu h100 --count 8 --max-price 0.5
check "no match is said" 'grep -q "no offer meets the requirement" <<<"$ERR"'
expect_rc 3 g -p vast launch gpu=h100 gpus=8 price'<='0.5 --dry-run -o json
check "an empty list" '[ "$(jq length <<<"$OUT")" = 0 ]'
expect_rc 2 g launch --gpu h100 --count 0
expect_rc 2 g launch --gpu h100 --attempts 0

# --max-price alone is a requirement; with an offer id it bounds that offer's price (it was
# ignored there, renting at any price).
expect_ok g -p vast launch --max-price 1000 --dry-run -o json
check "--max-price alone ranks candidates" '[ "$(jq length <<<"$OUT")" -gt 0 ]'
off=$(jq -r '.[0].id' <<<"$OUT")
before=$(sqlite3 "$DB" "SELECT count(*) FROM launch_journal")
expect_rc 2 g launch "$off" --max-price 0.01
check "an offer above --max-price is refused, saying its price" \
	'grep -q "more than the --max-price" <<<"$ERR"'
check "and nothing was asked of the provider" \
	'[ "$(sqlite3 "$DB" "SELECT count(*) FROM launch_journal")" = "$before" ]'
expect_ok g launch "$off" --max-price 1000 --dry-run
pass
