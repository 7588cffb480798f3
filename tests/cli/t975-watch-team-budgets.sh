#!/usr/bin/env bash
# The team's watcher holds each person to their own budget and everyone to the team's
# (issue 31): ann and bob on one team's state in PostgreSQL (as in t944), each with a
# budget.day of their own kept in the shared state, which the watcher (run by bob, whose
# profile has no budget keys) reads as the launch door does. ann over hers has her instance
# stopped, bob's left running; then the team's budget.day crossed stops bob's too. costs
# shows the same budgets beside the spend they count.
# figure: team-watch-budget
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z; midnight is 35200 s later

state() {
	as ann -o json show "$1" | jq -r .state
}
team_on_pg ann bob

# ann rents sim:o-000075 at $1.89/h, bob sim:o-000355 at $1.92/h (t944's).
expect_ok as ann launch sim:o-000075 --label a
a=$OUT
expect_ok as bob launch sim:o-000355 --label b
b=$OUT
expect_ok as ann sim advance 2m
expect_ok as bob sim advance 1h
# ann's: 3660 s at $1.89/h = 1.9215; bob's: 3678 s at $1.92/h = 1.9616.
expect_ok as ann budget set day 1.92
expect_ok as bob budget set day 3
expect_ok as ann budget set --team day 4
expect_ok as bob budget show -o json
want='[["user","bob","day",3],["user","bob","month",null],["user","ann","day",1.92],'
want+='["user","ann","month",null],["team","ml","day",4],["team","ml","month",null]]'
check "bob's own first, then every other person's, then the team's: $OUT" \
	'[ "$(jq -c "[.[] | [.scope, .name, .period, .budget]]" <<<"$OUT")" = "$want" ]'

expect_ok as bob costs -o json
check "costs beside the team's spend: the team's budget.day" '[ "$(jq .budget_day <<<"$OUT")" = 4 ]'
expect_ok as ann costs --mine -o json
check "costs --mine beside ann's: hers" '[ "$(jq .budget_day <<<"$OUT")" = 1.92 ]'

# The first pass: ann's 1.9215 rounds to $1.92 and reaches hers; bob's 1.9616 is under his
# 3 (65%, no warning); the team's 3.8831 is 97% of its 4: a warning, nothing stopped for it.
expect_ok as bob watch --once --interval 1m
check "the team's budget.day warned of at \$3.88: $OUT" \
	'[[ $OUT == *"warn budget-warn: \$3.88 of \$4.00 spent (80% or more of team.budget.day)"* ]]'
check "ann's budget.day is spent: hers alone stopped: $OUT" \
	'[[ $OUT == *"warn budget-exceeded: \$1.92 of \$1.92 spent: budget.day of ann is used up; stopping the running instances of ann, newest first"* ]] &&
	 grep -q "stop-ordered $a" <<<"$OUT" && ! grep -q "$b" <<<"$OUT"'
check "nothing said of bob's budget" '[[ $OUT != *"of bob"* ]]'
expect_ok as bob sim advance 1m
expect_ok as bob watch --once --interval 1m
check "ann's stopped, bob's running: $OUT" \
	'grep -q "stop-verified $a" <<<"$OUT" && [ "$(state "$a")" = stopped ] && [ "$(state "$b")" = running ]'

# bob's 3738 s are 1.9936, the team's 3.9151 (and ann's disk while stopped, $0.013014/h):
# under 4. Three minutes more: bob's 3918 s are 2.0896, still under his 3, and the team's
# 4.0111 (and under a tenth of a cent of ann's disk) reaches its 4: bob's is stopped.
expect_ok as bob sim advance 3m
expect_ok as ann watch --once --interval 1m
check "the team's budget.day is spent at \$4.01: everyone's stopped: $OUT" \
	'[[ $OUT == *"warn budget-exceeded: \$4.01 of \$4.00 spent: team.budget.day is used up; stopping the running instances, newest first"* ]] &&
	 grep -q "stop-ordered $b" <<<"$OUT" && ! grep -q "stop-ordered $a" <<<"$OUT"'
expect_ok as ann sim advance 1m
expect_ok as ann watch --once --interval 1m
check "both stopped" '[ "$(state "$a")" = stopped ] && [ "$(state "$b")" = stopped ]'
expect_ok as ann -o json events
check "each stopped once, ann's by her budget.day, bob's by the team's: $OUT" \
	'[ "$(jq -c "[.[] | select(.kind == \"stop-ordered\") | [.instance_id, .policy]]" <<<"$OUT")" = "[[\"$a\",\"budget.day\"],[\"$b\",\"team.budget.day\"]]" ]'
pass
