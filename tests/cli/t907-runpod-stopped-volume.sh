#!/bin/bash
# Issue 30 (the chaos run): a stopped RunPod pod bills its volume, $0.20 a GB-month
# (providers/runpod.md §3), which costPerHr leaves out. The backend derives that rate from the
# pod's volume (GraphQL volumeInGb, REST v2 mounts.persistent.size) and the ledger counts it;
# sim serve's RunPod bills the same. Before, the ledger counted nothing for a stopped pod and
# the simulated provider billed its disk at the market's storage price. Over GraphQL; t908
# runs it over REST v2 (RUNPOD_API=v2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"
# The provider's world starts at 01:00 UTC yesterday: its ten hours end before the wall's
# day does, so the bill check's window (to the wall's now) holds them whatever the hour the
# test runs at (from 14:00 UTC they crossed the world's midnight, and were cut there).
export GPURENT_SIM_TIME=$(( $(date -u +%s) / 86400 * 86400 - 86400 + 3600 ))

api=${RUNPOD_API:-graphql}
runpod_over "$api"

# 100 GB at $0.20 a GB-month of 730 hours: 27,397.26 micro-dollars an hour, kept as 27,397;
# 273,970 in ten hours.
rate=27397
ten_hours=273970
rent_cheapest --disk 100
expect_ok serve_g runpod sim advance 2m
expect_ok g stop --no-wait "$id"
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"stopped\"" >/dev/null'
expect_ok g ls -o json
stor=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .storage_hour * 1000000 | round' <<<"$OUT")
# figure: runpod-stopped-volume
check "$api: the stopped pod's volume costs $rate an hour ($stor)" '[ "$stor" = "$rate" ]'

# The ledger counts the volume from the stop on, as the provider bills it once its own stop
# is done (a minute on its clock): a match.
expect_ok serve_g runpod sim advance 1m
day=$(date -u +%F)
wait_until 50 'OUT=$(g costs --check -o json 2>/dev/null) && [ "$(bill_row "$id" "$day" ledger_storage)" -gt 0 ]'
expect_ok g costs --check -o json
check_matches
check "$api: the ledger counts the volume as the provider bills it" \
	'[ "$(bill_row "$id" "$day" ledger_storage)" -gt 0 ] && [ "$(bill_row "$id" "$day" cause)" = match ]'

# Ten hours stopped on the provider's clock (the ledger's is the wall's): the provider bills
# ten hours of the volume at that rate, and at most a minute of the test's own seconds beyond.
before=$(jq -r --arg id "$id" '[.rows[] | select(.instance == $id) | .billed_storage] | add * 1000000 | round' <<<"$OUT")
expect_ok serve_g runpod sim advance 10h
expect_rc 14 g costs --check -o json
billed=$(jq -r --arg id "$id" '[.rows[] | select(.instance == $id) | .billed_storage] | add * 1000000 | round' <<<"$OUT")
billed=$((billed - before))
check "$api: ten hours stopped billed $ten_hours <= $billed <= $ten_hours + a minute" \
	'[ "$billed" -ge "$ten_hours" ] && [ "$billed" -le $((ten_hours + rate / 60)) ]'
pass
