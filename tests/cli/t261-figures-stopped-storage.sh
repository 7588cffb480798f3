#!/bin/bash
# Issue 33: a provider's stopped instance bills its storage, in the ledger that `costs`,
# budgets, projections, `audit` and the exporter read (ledger_observe; the simulator's own
# instances bill theirs in the simulator, t260). Vast, here `gpurent sim serve`, is on the
# wall clock: the rate is pinned exactly, the spend to the seconds around the reading.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast

expect_ok g offers type=on-demand -o json -n 1
oid=$(jq -r '.[0].id' <<<"$OUT")
per_gb_month=$(jq -r '.[0].storage_gb_month' <<<"$OUT")
# 20 GB at the offer's price per GB and month of 730 h, in micro-dollars, rounded:
# e.g. 0.13 x 20 / 730 = 0.0035616 -> 3562.
storage=$(jq -n "$per_gb_month * 20 / 730 * 1000000 | round")
check "the offer has a storage price ($per_gb_month per GB-month: $storage micro-dollars/h)" \
	'[ "$storage" -gt 0 ]'
expect_ok g launch "$oid" --disk 20 --label parked
id=$OUT
expect_ok serve_g vast sim advance 10m
expect_ok g ls -o json
check "running" '[ "$(jq -r --arg id "$id" ".[] | select(.id == \$id) | .state" <<<"$OUT")" = running ]'
expect_ok g stop --no-wait "$id"
expect_ok serve_g vast sim advance 10m
expect_ok g ls -o json
check "stopped, its storage listed at $storage micro-dollars/h" \
	'jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"stopped\" and (.storage_hour * 1000000 | round) == $storage" <<<"$OUT" >/dev/null'

# figure: storage-while-stopped
expect_ok g costs -o json
check "costs burns the storage rate while stopped ($(jq -c .burn_hour <<<"$OUT"))" \
	'[ "$(jq ".burn_hour * 1000000 | round" <<<"$OUT")" = "$storage" ]'
expect_ok g costs --by instance -o json
check "and so does the instance's line" \
	'[ "$(jq --arg id "$id" ".rows[] | select(.key == \$id) | .burn_hour * 1000000 | round" <<<"$OUT")" = "$storage" ]'

# An hour stopped: the open storage segment moved an hour back, as if seen then. Its spend is
# an hour of storage and the seconds since, at most the few around the reading.
sqlite3 "$DB" "UPDATE ledger SET start_ts = start_ts - 3600 WHERE
	instance_id = '$id' AND end_ts = 0" || fail "sqlite3 update"
before=$(date +%s)
# What it ran for before (its closed compute segments; a reservation, kind 2, bills nothing).
compute=$(sqlite3 "$DB" "SELECT coalesce(sum(spent), 0) FROM ledger_closed WHERE
	instance_id = '$id' AND kind != 2")
expect_ok g costs --by instance -o json
after=$(date +%s)
spent=$(jq --arg id "$id" '.rows[] | select(.key == $id) | .spent * 1000000 | round' <<<"$OUT")
least=$((compute + storage))
most=$((compute + (storage * (3600 + after - before + 120) + 3599) / 3600))
check "an hour stopped costs an hour of storage: $spent in [$least, $most]" \
	'[ "$spent" -ge "$least" ] && [ "$spent" -le "$most" ]'
pass
