#!/bin/bash
# Issue 29.3: `costs --check` against `gpurent sim serve --dialect vast`, whose simulated
# provider serves its own bill at GET /api/v0/charges/. The ledger (wall clock, seen when
# gpurent lists) and the provider's seconds (on its clock) agree within the default tolerance
# of a cent for the cheapest offer; then the provider bills what gpurent did not see.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast

rent_cheapest --disk 20
num=${id#vast:}
sim_id=$(printf 'sim:i-%06d' "$num")
# The provider's clock runs ahead by the boot; gpurent sees it running at its next listing.
expect_ok serve_g vast sim advance 2m
expect_ok g ls -o json
check "running" '[ "$(jq -r --arg id "$id" ".[] | select(.id == \$id) | .state" <<<"$OUT")" = running ]'
expect_ok g costs --check -o json
check_matches

# Stopped: the provider bills its disk; then more disk than gpurent counts, and an instance
# gpurent never saw.
expect_ok g stop --no-wait "$id"
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"stopped\"" >/dev/null'
expect_ok serve_g vast sim bill-extra "$sim_id" 0.75 storage
expect_ok serve_g vast sim bill-extra sim:i-000077 2.00
expect_rc 14 g costs --check -o json
check_unseen vast:77 2000000
check_storage 750000
expect_rc 14 g costs --check
check "the table names both" '[[ "$OUT" == *"vast:77"* ]] && [[ "$OUT" == *"$id"*"storage billed beyond the ledger"* ]]'
pass
