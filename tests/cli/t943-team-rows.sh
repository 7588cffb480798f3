#!/usr/bin/env bash
# Who and which team (issue 31): in a team profile every row a person causes (a launch's
# journal and ledger rows, the watcher's events, a group) carries team.user and team.name,
# and a row from before (a launch made without them) has neither (NULL: unknown); events
# show whose they are in a team profile, and --mine keeps one's own (all, in a personal one).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

mapfile -t offers < <(ids_of 2)
[ "${#offers[@]}" -eq 2 ] || fail "fewer than 2 offers"
expect_ok g launch "${offers[0]}" --env SIM_WORKLOAD=idle --label before
old=$OUT
sqlite3 "$DB" "UPDATE launch_journal SET who = NULL; UPDATE ledger SET who = NULL" ||
	fail "forget who launched"
expect_ok g config set team.name ml
expect_ok g config set team.user alice
# A team profile's own budget keys are not read (the team's state holds each person's):
# said at the launch, rather than let a budget seem to hold.
expect_ok g config set budget.day 0.01
expect_ok g launch "${offers[1]}" --env SIM_WORKLOAD=idle --label mine
id=$OUT
check "the launch says the profile's budget.day is not read: $ERR" \
	'[[ $ERR == *"budget.day and budget.month of the profile are not read in a team profile"* ]]'
expect_ok g config unset budget.day
expect_ok g config set idle.after 1m
expect_ok g sim advance 2m
expect_ok g watch --once --interval 1m
expect_ok g sim advance 61
expect_ok g watch --once --interval 1m
check "the watcher stopped the idle one: $OUT" '[[ $OUT == *"stop-ordered $id"* ]]'
expect_ok g group create web --gpu A100 --min 0 --max 1 --target-util 50

# The rows of table $1 where $2, as "ROWS ROWS-OF-ALICE-OF-ML ROWS-OF-NOBODY".
whose() {
	sqlite3 "$DB" "SELECT count(*), count(CASE WHEN who = 'alice' AND team = 'ml' THEN 1 END),
		count(CASE WHEN who IS NULL AND team IS NULL THEN 1 END) FROM $1 WHERE $2" | tr '|' ' '
}
check "the launch journal: alice of ml" '[ "$(whose launch_journal "instance_id = '\''$id'\''")" = "1 1 0" ]'
check "the ledger's rows of her instance (provisioning, compute): alice of ml" \
	'[ "$(whose ledger "instance_id = '\''$id'\''")" = "2 2 0" ]'
check "the older instance's ledger rows: unknown" \
	'[ "$(whose ledger "instance_id = '\''$old'\''")" = "2 0 2" ]'
check "the watcher's events (idle, stop-ordered): alice of ml" \
	'[ "$(whose events "instance_id = '\''$id'\''")" = "2 2 0" ]'
check "the group: alice of ml" '[ "$(whose groups "name = '\''web'\''")" = "1 1 0" ]'

# What a teammate sees: every event, whose, and with --mine none (bob wrote none).
expect_ok g config set team.user bob
expect_ok g events
check "events: a USER column, alice's" '[[ $(head -1 <<<"$OUT") == *USER ]] && grep -q "stop-ordered .* alice$" <<<"$OUT"'
expect_ok g events --mine -o json
check "bob's events --mine: none" '[ "$(jq length <<<"$OUT")" = 0 ]'
expect_ok g config set team.user alice
expect_ok g events --mine -o json
check "alice's events --mine: hers, user alice" \
	'[ "$(jq "[.[] | select(.user == \"alice\")] | length" <<<"$OUT")" = "$(jq length <<<"$OUT")" ] && [ "$(jq length <<<"$OUT")" -ge 4 ]'
expect_ok g config unset team.name
expect_ok g events --mine
check "a personal profile: --mine is everything, no USER column" \
	'[[ $(head -1 <<<"$OUT") != *USER* ]] && [ "$(grep -c ordered <<<"$OUT")" = 2 ]'
pass
