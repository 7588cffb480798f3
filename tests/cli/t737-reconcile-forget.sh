#!/bin/bash
# gpurent reconcile --forget ID...: the local record of an instance its provider no longer has
# (destroyed behind gpurent's back) is dropped, after a question (refused without a terminal
# unless --yes): reconcile lists it no more, its costs stay. One the provider still has is
# refused; the ids come only with --forget.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key k
use_provider vast k
expect_ok g config set providers vast
api() {
	curl -sf -X "$1" -H "Authorization: Bearer k" "$SERVE_URL$2"
}
expect_ok g offers type=on-demand -o json -n 2
offers=$OUT
expect_ok g launch "$(jq -r '.[0].id' <<<"$offers")" --label kept
kept=$OUT
expect_ok g launch "$(jq -r '.[1].id' <<<"$offers")" --label doomed
doomed=$OUT
expect_ok serve_g vast sim advance 10m
expect_ok g ls
# A listing closes only the records begun before the second it was asked in.
seen=$(date +%s)
wait_until 30 '[ "$(date +%s)" -gt "$seen" ]' || fail "the clock did not move"
api DELETE "/api/v0/instances/${doomed#vast:}/" >/dev/null || fail "destroy through the API"
expect_ok g reconcile -o json
check "the destroyed one is vanished ($OUT)" \
	'jq -e --arg id "$doomed" "[.[] | select(.id == \$id and .findings == [\"vanished\"])] | length == 1" <<<"$OUT" >/dev/null'
# What it cost, by instance: closed, so the same later.
doomed_cost() { g costs --by instance -o json | jq -c --arg id "$doomed" '[.rows[] | select(.key == $id)]'; }
costs=$(doomed_cost)
check "its cost is in costs ($costs)" '[ "$(jq length <<<"$costs")" = 1 ]'

expect_rc 2 g reconcile "$doomed"
check "an id without --forget is refused" '[[ $ERR == *--forget* ]]'
expect_rc 2 g reconcile --forget
expect_rc 2 g reconcile --forget "$doomed" </dev/null
check "no terminal, no --yes: refused" '[[ $ERR == *--yes* ]]'
expect_rc 13 g reconcile --forget --yes "$kept"
check "one its provider still has is not forgotten" '[[ $ERR == *"still at its provider"* ]]'
expect_ok g reconcile -o json
check "nothing was forgotten yet" \
	'jq -e --arg id "$doomed" "[.[] | select(.id == \$id)] | length == 1" <<<"$OUT" >/dev/null'

expect_ok g reconcile --forget --yes "$doomed"
check "the forgotten id is printed" '[ "$OUT" = "$doomed" ]'
expect_ok g reconcile -o json
check "reconcile lists it no more ($OUT)" \
	'jq -e --arg id "$doomed" "[.[] | select(.id == \$id)] | length == 0" <<<"$OUT" >/dev/null'
check "its costs stay" '[ "$(doomed_cost)" = "$costs" ]'
pass
