#!/bin/bash
# Issue 29.3: `costs --check` against `gpurent sim serve --dialect vast`, whose simulated
# provider serves its own bill at GET /api/v0/charges/. The ledger (wall clock, seen when
# gpurent lists) and the provider's seconds (on its clock) agree within the default tolerance
# of a cent for the cheapest offer; then the provider bills what gpurent did not see.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast

expect_ok g offers type=on-demand -n 1 -o ids
expect_ok g launch "$OUT" --disk 20 -o ids
id=$OUT
num=${id#vast:}
sim_id=$(printf 'sim:i-%06d' "$num")
# The provider's clock runs ahead by the boot; gpurent sees it running at its next listing.
expect_ok serve_g vast sim advance 2m
expect_ok g ls -o json
check "running" '[ "$(jq -r --arg id "$id" ".[] | select(.id == \$id) | .state" <<<"$OUT")" = running ]'
expect_ok g costs --check -o json
check "all is well: the instance matches its bill ($(jq -c .rows <<<"$OUT"))" \
	'jq -e --arg id "$id" ".differences == 0 and any(.rows[]; .instance == \$id and .cause == \"match\" and .billed > 0)" <<<"$OUT" >/dev/null'

# Stopped: the provider bills its disk; then more disk than gpurent counts, and an instance
# gpurent never saw.
expect_ok g stop --no-wait "$id"
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"stopped\"" >/dev/null'
expect_ok serve_g vast sim bill-extra "$sim_id" 0.75 storage
expect_ok serve_g vast sim bill-extra sim:i-000077 2.00
expect_rc 14 g costs --check -o json
day=$(date -u +%F)
row() {	# INSTANCE FIELD: the figure in micro-dollars today, "null" when unknown
	jq -r --arg id "$1" --arg d "$day" ".rows[] | select(.instance == \$id and .day == \$d) | .$2 | if type == \"number\" then . * 1000000 | round else . end" <<<"$OUT"
}
# figure: check-unseen check-difference
check "vast:77 is named: billed 2.00, which the ledger does not have" \
	'[ "$(row vast:77 ledger)" = null ] && [ "$(row vast:77 billed)" = 2000000 ] && [ "$(row vast:77 difference)" = 2000000 ] && [ "$(row vast:77 cause)" = unseen ]'
# figure: check-storage
d=$(row "$id" difference)
check "$id is named for its stopped disk: 0.75 more than the ledger, within a cent ($d)" \
	'[ "$d" -ge 740000 ] && [ "$d" -le 760000 ] && [ "$(row "$id" cause)" = storage ] && [ "$(row "$id" billed_storage)" -ge 750000 ]'
expect_rc 14 g costs --check
check "the table names both" '[[ "$OUT" == *"vast:77"* ]] && [[ "$OUT" == *"$id"*"storage billed beyond the ledger"* ]]'
pass
