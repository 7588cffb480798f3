#!/bin/bash
# Issue 30, found by the long chaos run: a budgeted launch held the launch lock through its
# provider's create, so launches queued behind a slow provider one create at a time (one
# waited past 90 s behind eleven others). Now the lock covers the budget check and the
# journal alone: a launch admitted is in flight, and the launches admitted while its create
# is at the provider count it. Four launches with room for any three: the three admitted
# have their creates at the provider at once (held there by a gate until the test opens it),
# and the fourth is refused by the budget while they are held, counting them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

gate=$TMP/gate
GPURENT_SERVE_HOLD=$gate start_serve vast --api-key k --fail-match /api/v0/asks/ \
	--log-requests "$TMP/requests"
use_provider vast k

# Vast offers are one machine each: the four cheapest, p1 <= p2 <= p3 <= p4.
expect_ok g -p vast offers type=on-demand -o json
mapfile -t offers < <(jq -r '.[0:4][] | .id' <<<"$OUT")
mapfile -t prices < <(jq -r '.[0:4][] | .price_hour * 1000000 | round' <<<"$OUT")
check "four offers (${offers[*]} at ${prices[*]} micro-dollars/h)" '[ ${#offers[@]} = 4 ]'
# Room for the dearest three until the end of this month (UTC), not for all four: halfway.
now=$(date -u +%s)
month_end=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%s)
three=$((prices[1] + prices[2] + prices[3]))
four=$((three + prices[0]))
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.6f\", ($three + $four) / 2 * ($month_end - $now) / 3600 / 1e6 }")"

pids=()
for i in 0 1 2 3; do
	g launch "${offers[$i]}" --label "flight$i" -o ids >"$TMP/launch.$i" 2>"$TMP/launch.$i.err" &
	pids+=($!)
done
CLEANUP_HOOKS+=("kill ${pids[*]} 2>/dev/null")
creates() { grep -c /api/v0/asks/ "$TMP/requests" 2>/dev/null; }
# Ended: gone, or a zombie not yet waited for.
gone() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -z "$st" ] || [[ $st == Z* ]]
}
ended() {
	local i n=0
	for i in 0 1 2 3; do gone "${pids[$i]}" && n=$((n + 1)); done
	echo $n
}
wait_until 300 '[ "$(creates)" -ge 3 ] && [ "$(ended)" -ge 1 ]'
ERR=$(cat "$TMP"/launch.*.err)
check "three creates at the provider at once, before any was answered ($(creates))" \
	'[ "$(creates)" = 3 ]'
check "one launch ended meanwhile ($(ended))" '[ "$(ended)" = 1 ]'
for i in 0 1 2 3; do
	gone "${pids[$i]}" || continue
	wait "${pids[$i]}"
	rc=$?
	ERR=$(cat "$TMP/launch.$i.err")
	check "it was refused by budget.month, counting the three in flight (status $rc)" \
		'[ $rc = 9 ] && [[ "$ERR" == *"refused by budget.month"* ]]'
done

: >"$gate"
ok=0
for i in 0 1 2 3; do
	wait "${pids[$i]}" 2>/dev/null && [ -s "$TMP/launch.$i" ] && ok=$((ok + 1))
done
ERR=$(cat "$TMP"/launch.*.err)
check "the three held launches ended well once answered ($ok)" '[ $ok = 3 ]'
expect_ok g -p vast ls -o json
check "three instances at the provider" '[ "$(jq length <<<"$OUT")" = 3 ]'
run sqlite3 "$DB" "SELECT count(*) FROM launch_journal WHERE settled = 1 AND instance_id != ''"
check "each launch journaled and settled with its instance ($OUT)" '[ "$OUT" = 3 ]'
run sqlite3 "$DB" "SELECT count(*) FROM meta WHERE key LIKE 'launch.inflight:%'"
check "none is in flight any more ($OUT)" '[ "$OUT" = 0 ]'
pass
