#!/bin/bash
# Issue 26 item 2: the watcher compares each account every reconcile.interval and raises one
# event per new finding, never the same finding twice while it lasts. The first pass on a
# database starts the count; each later pass here waits out the one-second interval.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers vast
expect_ok g config set reconcile.interval 1s
api() {
	curl -sf -X "$1" -H "Authorization: Bearer test-key-vast" -H 'Content-Type: application/json' \
	    ${3:+-d "$3"} "$SERVE_URL$2"
}
reconcile_events() {
	sqlite3 "$DB" "SELECT kind || ' ' || instance_id FROM events WHERE policy = 'reconcile'
		ORDER BY seq"
}
# One watcher pass, at least a second of the wall clock after the one before.
pass_after_interval() {
	local last
	last=$(sqlite3 "$DB" "SELECT value FROM meta WHERE key = 'reconcile.last'")
	wait_until 30 '[ "$(date +%s)" -gt "${last:-0}" ]' || fail "the clock did not move"
	expect_ok g watch --once
}

expect_ok g offers type=on-demand -o json -n 2
oid=$(jq -r '.[0].id' <<<"$OUT")
other=$(jq -r '.[1].id' <<<"$OUT")
expect_ok g launch "$oid" --disk 20 --label ours
ours=$OUT
made=$(api PUT "/api/v0/asks/${other#vast:}/" '{"image":"pytorch","disk":20,"label":"console"}') ||
	fail "create through the API"
foreign=vast:$(jq -r .new_contract <<<"$made")
expect_ok serve_g vast sim advance 10m

expect_ok g watch --once
check "the first pass starts the count: no comparison yet" '[ -z "$(reconcile_events)" ]'
pass_after_interval
check "the next one finds the foreign instance, once: $(reconcile_events | tr '\n' ';')" \
	'[ "$(reconcile_events)" = "foreign-instance $foreign" ]'
check "and says so on its output" 'grep -q "warn foreign-instance $foreign" <<<"$OUT"'
expect_ok g -o json events
check "as a warning of the journal" \
	'jq -e --arg id "$foreign" "[.[] | select(.kind == \"foreign-instance\" and .instance_id == \$id and .level == \"warn\")] | length == 1" <<<"$OUT" >/dev/null'
pass_after_interval
check "not again on the pass after" '[ "$(reconcile_events | wc -l)" = 1 ]'

# Two new findings at once: the instance stopped (its disk bills), the foreign one gone.
api PUT "/api/v0/instances/${ours#vast:}/" '{"state":"stopped"}' >/dev/null || fail "stop through the API"
expect_ok serve_g vast sim advance 10m
api DELETE "/api/v0/instances/${foreign#vast:}/" >/dev/null || fail "destroy through the API"
pass_after_interval
check "one event for each new finding: $(reconcile_events | tr '\n' ';')" \
	'[ "$(reconcile_events | tail -n +2 | sort)" = "$(printf "stopped-storage %s\nvanished-instance %s" "$ours" "$foreign")" ]'
pass_after_interval
check "and none the pass after" '[ "$(reconcile_events | wc -l)" = 3 ]'
pass
