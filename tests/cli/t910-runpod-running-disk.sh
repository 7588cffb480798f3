#!/bin/bash
# Issue 30 (the chaos run): a running RunPod pod bills its disks, container disk and volume
# alike, at $0.10 a GB-month (providers/runpod.md §3), beside its costPerHr, which leaves them
# out. The backend reads that rate from the pod's disks and the ledger counts it with the
# pod's price; sim serve's RunPod bills the same. Before, neither counted them (t907: the
# volume of a stopped pod, at $0.20). Over GraphQL; t911 runs it over REST v2
# (RUNPOD_API=v2).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"
# The provider's world starts at 01:00 UTC yesterday: its ten hours end before the wall's
# day does, so the bill check's window (to the wall's now) holds them whatever the hour the
# test runs at (from 14:00 UTC they crossed the world's midnight, and were cut there).
export GPURENT_SIM_TIME=$(( $(date -u +%s) / 86400 * 86400 - 86400 + 3600 ))

api=${RUNPOD_API:-graphql}
runpod_over "$api"

# 100 GB at $0.10 a GB-month of 730 hours: 13,698.63 micro-dollars an hour, kept as 13,699,
# on top of the pod's costPerHr (the provider's own record of it).
disk=13699
rent_cheapest --disk 100
expect_ok serve_g runpod sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\"" >/dev/null'
cost=$(sqlite3 "$(serve_home runpod)/state.db" "SELECT price_hour FROM sim_instances")
expect_ok g costs -o json
burn=$(jq -r '.burn_hour * 1000000 | round' <<<"$OUT")
# figure: runpod-running-disk
check "$api: the running pod burns its costPerHr $cost and its disk $disk an hour ($burn)" \
	'[ "$burn" = $((cost + disk)) ]'
expect_ok g costs --check -o json
check_matches

# Ten hours running on the provider's clock (the ledger's is the wall's): the provider bills
# ten hours of the pod and its disk, and at most a minute of the test's own seconds beyond.
day=$(date -u -d @"$GPURENT_SIM_TIME" +%F)	# the provider's day
before=$(bill_row "$id" "$day" billed)
expect_ok serve_g runpod sim advance 10h
expect_rc 14 g costs --check -o json
billed=$(($(jq -r --arg id "$id" '[.rows[] | select(.instance == $id) | .billed] | add * 1000000 | round' <<<"$OUT") - before))
ten_hours=$((10 * (cost + disk)))
check "$api: ten hours running billed $ten_hours <= $billed <= $ten_hours + a minute" \
	'[ "$billed" -ge "$ten_hours" ] && [ "$billed" -le $((ten_hours + (cost + disk) / 60)) ]'
pass
