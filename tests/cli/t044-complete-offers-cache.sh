#!/bin/bash
# Issue 17 part 4: completion offers the ids of the providers' kept answers (not only those
# `offers` printed), at once and offline, and refreshes an old or empty cache in the
# background: the refresher is detached, recorded in the meta table, and one at a time.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

refresher() {
	sqlite3 "$DB" \
	    "SELECT value FROM meta WHERE key = 'offer_cache.refresh'" 2>/dev/null | cut -d' ' -f2
}
# Wait (bounded) for a refresher to end; kill it if it outlives the wait.
wait_refresher() {
	local pid=$1 i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill "$pid" 2>/dev/null
	fail "the background refresh ($pid) did not end"
}

# Nothing kept yet: completion answers at once with what there is, and starts a refresh.
expect_ok g __complete args launch sim:
check "no offer ids before any search" '[ -z "$OUT" ]'
pid=$(refresher)
check "a background refresh was started ($pid)" '[[ $pid =~ ^[0-9]+$ ]]'
CLEANUP_HOOKS+=("kill $pid 2>/dev/null")
wait_refresher "$pid"
expect_ok g __complete args launch sim:
n=$(wc -l <<<"$OUT")
all=$(g -o ids offers --limit 0 --max-age 1h | wc -l)
check "after it, every kept offer completes ($n of $all)" '[ "$n" -eq "$all" ] && [ "$n" -gt 10 ]'
expect_ok g __complete args launch sim:
check "a fresh cache starts no second refresh" '[ "$(refresher)" = "$pid" ]'

# A provider's answer: `offers` printed one id, completion knows them all.
start_serve vast --api-key k
use_provider vast k
expect_ok g --provider vast -o ids offers gpus=1 --limit 1
check "one offer printed" '[ "$(wc -l <<<"$OUT")" -eq 1 ]'
stop_serve
expect_ok g --provider vast __complete args launch vast:
check "completion lists vast's kept offers, not only the printed one ($(wc -l <<<"$OUT"))" \
    '[ "$(wc -l <<<"$OUT")" -gt 1 ]'
pass
