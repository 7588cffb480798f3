#!/bin/bash
# Issue 30: sim serve's vast bills a running instance what its dph_total says, the machine and
# its disk together, so that the ledger (which counts dph_total while it runs) and the
# provider's bill agree. Before, the simulated provider billed the machine alone while it ran:
# over ten hours of a 200 GB disk, tens of cents short of the price it showed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/bill.sh"
# The provider's world starts at 01:00 UTC yesterday: its ten hours end before the wall's
# day does, so the bill check's window (to the wall's now) holds them whatever the hour the
# test runs at (from 14:00 UTC they crossed the world's midnight, and were cut there).
export GPURENT_SIM_TIME=$(( $(date -u +%s) / 86400 * 86400 - 86400 + 3600 ))

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast

rent_cheapest --disk 200
expect_ok serve_g vast sim advance 2m
expect_ok g ls -o json
total=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .price_hour * 1000000 | round' <<<"$OUT")
disk=$(jq -r --arg id "$id" '.[] | select(.id == $id) | .storage_hour * 1000000 | round' <<<"$OUT")
check "running at a price with its disk in it ($total, disk $disk)" \
	'[ "$(jq -r --arg id "$id" ".[] | select(.id == \$id) | .state" <<<"$OUT")" = running ] && [ "$disk" -gt 1000 ] && [ "$total" -gt "$disk" ]'
# Ten hours on the provider's clock: it bills ten hours of dph_total, and at most the two
# minutes of boot and the test's own seconds beyond them (a few cents at this price). The
# ledger, on the wall clock, has seen seconds of it: the check tells the difference (14).
expect_ok serve_g vast sim advance 10h
expect_rc 14 g costs --check -o json
billed=$(jq -r --arg id "$id" '[.rows[] | select(.instance == $id) | .billed] | add * 1000000 | round' <<<"$OUT")
# figure: vast-disk-running
want=$((total * 10))
check "billed ten hours of the machine and its disk: $want <= $billed <= $want + 5 min" \
	'[ "$billed" -ge "$want" ] && [ "$billed" -le $((want + total / 12)) ]'
pass
