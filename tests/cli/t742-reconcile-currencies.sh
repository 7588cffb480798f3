#!/bin/bash
# Issue 26 item 2: reconcile keeps each instance's money in its own currency. A stopped
# simulated instance bills its storage in dollars (20 GB at 0.20 a GB-month over 730 hours,
# 0.005479 an hour, for 730 hours: 3.999670); a stopped PPIO instance, whose provider does
# not say its storage rate, bills an unknown amount in yuan: '-' and null, never 0, and
# never added to the dollars.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

ppio_beside_sim
expect_ok g --provider sim offers type=on-demand -o json -n 1
oid=$(jq -r '.[0].id' <<<"$OUT")
per_gb_month=$(jq -r '.[0].storage_gb_month' <<<"$OUT")
expect_ok g launch "$oid" --disk 20 --label dollars
sim_id=$OUT
launched=0
for off in $(g --provider ppio -o json offers gpus=1 type=on-demand 2>/dev/null |
    jq -r '.[0:12][].id'); do
	run g launch "$off" --image pytorch/pytorch --label yuan --disk 40
	case $RC in
	0) launched=1; ppio_id=$OUT; break ;;
	7) ;;
	*) fail "launch of $off exited $RC" ;;
	esac
done
check "a PPIO offer launched" '[ $launched = 1 ]'
expect_ok g sim advance 10m
expect_ok serve_g ppio sim advance 10m
expect_ok g stop --no-wait "$sim_id" "$ppio_id"
expect_ok g sim advance 10m
expect_ok serve_g ppio sim advance 10m

expect_ok g reconcile -o json
check "both stopped instances are found: $(jq -c 'map([.id, .findings, .currency])' <<<"$OUT")" \
	'[ "$(jq -c "map(.id) | sort" <<<"$OUT")" = "$(jq -nc --arg a "$sim_id" --arg b "$ppio_id" "[\$a, \$b] | sort")" ]'
month=$(($(jq -n "$per_gb_month * 20 / 730 * 1000000 | round") * 730))
check "the simulated one's storage: $month micro-dollars a month" \
	'jq -e --arg id "$sim_id" --argjson m "$month" ".[] | select(.id == \$id) | .findings == [\"storage\"] and .currency == \"USD\" and (.storage_month * 1000000 | round) == \$m" <<<"$OUT" >/dev/null'
check "the PPIO one's is unknown, in yuan" \
	'jq -e --arg id "$ppio_id" ".[] | select(.id == \$id) | .findings == [\"storage\"] and .currency == \"CNY\" and .storage_month == null and .price_hour > 0" <<<"$OUT" >/dev/null'
expect_ok env COLUMNS=200 "$GPURENT" reconcile
row=$(grep "^$ppio_id " <<<"$OUT")
check "the table prices it in yuan and shows its storage as unknown: $row" \
	'grep -q "¥[0-9]" <<<"$row" && [ "$(awk "{ print \$(NF - 1) }" <<<"$row")" = - ]'
# A provider that cannot list fails alone: the others' findings, status 10, its name said.
GPURENT_PPIO_API_KEY=wrong expect_rc 10 g reconcile -o json
check "the simulated finding is still listed" '[ "$(jq -r "map(.id) | join(\",\")" <<<"$OUT")" = "$sim_id" ]'
check "and PPIO is named" 'grep -q "gpurent: ppio:" <<<"$ERR"'
pass
