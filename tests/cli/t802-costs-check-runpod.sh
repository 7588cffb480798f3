#!/bin/bash
# Issue 29.3: `costs --check` against `gpurent sim serve --dialect runpod`, whose simulated
# provider serves its bill as REST v2's GET /v2/billing/pods (a day's bucket per pod). All is
# well for the cheapest pod; then the provider bills a pod gpurent never saw and its disk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve runpod --api-key test-key-runpod
use_provider runpod test-key-runpod
expect_ok g config set providers runpod

expect_ok g offers type=on-demand -n 1 -o ids
expect_ok g launch "$OUT" -o ids
id=$OUT
num=$((10#${id#runpod:sp}))
sim_id=$(printf 'sim:i-%06d' "$num")
expect_ok serve_g runpod sim advance 2m
expect_ok g show "$id" -o json
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g costs --check -o json
check "all is well: the pod matches its bill ($(jq -c .rows <<<"$OUT"))" \
	'jq -e --arg id "$id" ".differences == 0 and any(.rows[]; .instance == \$id and .cause == \"match\" and .billed > 0)" <<<"$OUT" >/dev/null'

expect_ok serve_g runpod sim bill-extra "$sim_id" 0.40 storage
expect_ok serve_g runpod sim bill-extra sim:i-000066 3.25
expect_rc 14 g costs --check -o json
day=$(date -u +%F)
row() {	# INSTANCE FIELD: the figure in micro-dollars today, "null" when unknown
	jq -r --arg id "$1" --arg d "$day" ".rows[] | select(.instance == \$id and .day == \$d) | .$2 | if type == \"number\" then . * 1000000 | round else . end" <<<"$OUT"
}
# figure: check-unseen check-difference
check "runpod:sp000000000066 is named: billed 3.25, which the ledger does not have" \
	'[ "$(row runpod:sp000000000066 ledger)" = null ] && [ "$(row runpod:sp000000000066 billed)" = 3250000 ] && [ "$(row runpod:sp000000000066 difference)" = 3250000 ] && [ "$(row runpod:sp000000000066 cause)" = unseen ]'
# figure: check-storage
d=$(row "$id" difference)
check "$id is named for its disk: 0.40 more than the ledger, within a cent ($d)" \
	'[ "$d" -ge 390000 ] && [ "$d" -le 410000 ] && [ "$(row "$id" cause)" = storage ] && [ "$(row "$id" billed_storage)" = 400000 ]'
pass
