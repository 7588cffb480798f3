#!/bin/bash
# The launches in flight were read by a range of meta keys ('launch.inflight:' to
# 'launch.inflight;'), which a PostgreSQL database whose collation is not bytewise (ICU's,
# glibc's since 2.28: punctuation weighs nothing at first) holds none of: two launches at
# once both passed a team budget that fits one. On a database of such a collation (the
# test's server is initialised with C.UTF-8: a second database of the server), a launch held
# at its provider (a gate the test opens) is in flight, and a second launch, beside it, is
# refused by the team's budget.month counting it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/pg.sh"
start_pg

# ICU's collation (PostgreSQL 15 builds with it); else a libc locale of the machine's.
url=${GPURENT_TEST_PG_URL%/*}/collated
psql -q "$GPURENT_TEST_PG_URL" -c "CREATE DATABASE collated TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'" 2>/dev/null ||
	{ loc=$(locale -a | grep -Eiv '^(c|posix)([.].*)?$' | grep -Ei 'utf-?8' | head -n 1)
	  [ -n "$loc" ] || fail "no ICU and no locale but C and POSIX: no collation to test"
	  psql -q "$GPURENT_TEST_PG_URL" -c "CREATE DATABASE collated TEMPLATE template0 LC_COLLATE '$loc' LC_CTYPE '$loc'" ||
		fail "cannot make a database of collation $loc"; }
run psql -At "$url" -c "SELECT 'launch.inflight:1' >= 'launch.inflight:' AND 'launch.inflight:1' < 'launch.inflight;'"
check "the database's collation is not bytewise: the old range misses a key ($OUT)" '[ "$OUT" = f ]'

gate=$TMP/gate
GPURENT_SERVE_HOLD=$gate start_serve vast --api-key k --fail-match /api/v0/asks/ \
	--log-requests "$TMP/requests"
use_provider vast k
expect_ok g config set providers vast
expect_ok g config set state.url "$url"
expect_ok g config set team.name ml
expect_ok g config set team.user ann

# Vast offers are one machine each: the two cheapest, p0 <= p1.
expect_ok g offers type=on-demand -o json
mapfile -t offers < <(jq -r '.[0:2][] | .id' <<<"$OUT")
mapfile -t prices < <(jq -r '.[0:2][] | .price_hour * 1000000 | round' <<<"$OUT")
check "two offers (${offers[*]} at ${prices[*]} micro-dollars/h)" '[ ${#offers[@]} = 2 ]'
# Room for the first until the end of this month (UTC), and half of the second.
now=$(date -u +%s)
month_end=$(date -u -d "$(date -u +%Y-%m-01) +1 month" +%s)
expect_ok g budget set --team month "$(awk "BEGIN { printf \"%.6f\", (${prices[0]} + ${prices[1]} / 2) * ($month_end - $now) / 3600 / 1e6 }")"

creates() { grep -c /api/v0/asks/ "$TMP/requests" 2>/dev/null; }
g launch "${offers[0]}" --label first -o ids >"$TMP/first" 2>"$TMP/first.err" &
first=$!
CLEANUP_HOOKS+=("kill $first 2>/dev/null")
wait_until 300 '[ "$(creates)" = 1 ]'
check "the first launch is at the provider, held ($(creates))" '[ "$(creates)" = 1 ]'
g launch "${offers[1]}" --label second -o ids >"$TMP/second" 2>"$TMP/second.err" &
second=$!
CLEANUP_HOOKS+=("kill $second 2>/dev/null")
wait_until 300 '! kill -0 $second 2>/dev/null || [ "$(creates)" -ge 2 ]'
ERR=$(cat "$TMP/second.err")
check "the second launch did not reach the provider ($(creates))" '[ "$(creates)" = 1 ]'
wait_until 300 '! kill -0 $second 2>/dev/null'
wait $second
rc=$?
check "it was refused by the team's budget.month, counting the first in flight (status $rc)" \
	'[ $rc = 9 ] && [[ "$ERR" == *"budget (gpurent budget show): refused by budget.month"* ]]'

: >"$gate"
wait $first
rc=$?
ERR=$(cat "$TMP/first.err")
check "the held launch ended well once answered (status $rc)" '[ $rc = 0 ] && [ -s "$TMP/first" ]'
run psql -At "$url" -c "SELECT count(*) FROM meta WHERE substr(key, 1, 16) = 'launch.inflight:'"
check "nothing is in flight any more ($OUT)" '[ "$OUT" = 0 ]'
pass
