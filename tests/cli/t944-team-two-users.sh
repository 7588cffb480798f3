#!/usr/bin/env bash
# Two people of one team (issue 31): ann and bob, each with a profile of their own (team.user)
# on one team's state (a PostgreSQL server of the test's own, team.name ml) and one provider
# account (the simulator's world, shared as a provider's account is). Each launches; both see
# both instances, whose; costs and audit split the spend per person and --mine keeps one's
# own; bob's budget.day counts only his spend, the team's (budget set --team) everyone's; and
# when both launch at the same moment under a team budget.day that fits only one launch, one
# is admitted and the other refused, round after round.
# figure: team-spend-by-user
# figure: team-budget
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z; midnight is 35200 s later

team_on_pg ann bob

# ann rents sim:o-000075 at $1.89/h, bob sim:o-000355 at $1.92/h (t940: seed 42's H100s).
expect_ok as ann launch sim:o-000075 --label a
a=$OUT
expect_ok as bob launch sim:o-000355 --label b
b=$OUT
expect_ok as ann sim advance 2m	# ann's boots in 60 s, bob's in 42 s
expect_ok as bob sim advance 1h

for who in ann bob; do
	expect_ok as $who ls
	check "$who's ls shows both, each with its user: $OUT" \
		'grep -q "^$a .* ann$" <<<"$OUT" && grep -q "^$b .* bob$" <<<"$OUT" && [[ $OUT == *USER* ]]'
done
expect_ok as ann ls --mine -o json
check "ann's ls --mine: hers alone, user ann" '[ "$(jq -c "[.[] | [.id, .user]]" <<<"$OUT")" = "[[\"$a\",\"ann\"]]" ]'

# ann's: 3660 s at $1.89/h = 1.9215; bob's: 3678 s at $1.92/h = 1.9616 (1.92 x 3678 / 3600).
expect_ok as bob costs --by user -o json
check "costs --by user: bob 1.9616, ann 1.9215: $OUT" \
	'[ "$(jq -c "[.rows[] | [.key, .spent, .burn_hour]]" <<<"$OUT")" = "[[\"bob\",1.9616,1.92],[\"ann\",1.9215,1.89]]" ]'
expect_ok as ann costs --mine -o json
check "ann's costs --mine: 1.9215 of the team's 3.8831" '[ "$(jq .spent <<<"$OUT")" = 1.9215 ]'
expect_ok as bob audit --offline --by user -o json
check "audit --by user: bob 1.9616, ann 1.9215" \
	'[ "$(jq -c "[.rows[] | [.key, .spend]]" <<<"$OUT")" = "[[\"bob\",1.9616],[\"ann\",1.9215]]" ]'
expect_ok as bob audit --offline --mine -o json
check "bob's audit --mine: his instance alone" '[ "$(jq -c "[.rows[] | [.key, .spend]]" <<<"$OUT")" = "[[\"$b\",1.9616]]" ]'

# Budgets, 31480 s before midnight. Today, the team projects 3.8831 + (1.89 + 1.92) x
# 31480 / 3600 = 37.199433; bob alone 1.9616 + 1.92 x 31480 / 3600 = 18.750933. One more at
# $2.18/h (sim:o-000366) adds 2.18 x 31480 / 3600 = 19.063111: 37.814044 for bob's own
# budget, 56.262544 for the team's.
expect_ok as bob budget set day 37.81
expect_rc 9 as bob launch --dry-run sim:o-000366
check "bob's own budget.day counts his spend: 37.81 refuses" '[[ $ERR == *"reach \$37.81 against a budget of \$37.81"* ]]'
expect_ok as bob budget set day 37.82
expect_ok as bob launch --dry-run sim:o-000366
expect_ok as bob budget unset day
expect_ok as ann budget set --team day 56.26
expect_ok as bob budget show -o json
check "bob sees the team's budget.day ann set" \
	'[ "$(jq -c "[.[] | select(.scope == \"team\") | [.name, .period, .budget]]" <<<"$OUT")" = "[[\"ml\",\"day\",56.26],[\"ml\",\"month\",null]]" ]'
expect_rc 9 as bob launch --dry-run sim:o-000366
check "the team's budget.day counts everyone's: 56.26 refuses" '[[ $ERR == *"team"*"reach \$56.26 against a budget of \$56.26"* ]]'
expect_ok as ann budget set --team day 56.27
expect_ok as bob launch --dry-run sim:o-000366

# The race: a team budget.day that one more H100 fits (about $19 to midnight) and two do not.
expect_ok as ann budget set --team day 67.20
for round in 1 2 3 4 5; do
	# Two offers on the market now (a machine destroyed is for rent again later).
	mapfile -t offers < <(as ann -o ids offers gpu=H100 type=on-demand | head -n 2)
	[ "${#offers[@]}" -eq 2 ] || fail "round $round: fewer than 2 offers"
	gate=$TMP/gate-$round
	for who in ann bob; do
		[ $who = ann ] && o=${offers[0]} || o=${offers[1]}
		# Each waits for the gate (at most 30 s), then launches.
		(for ((i = 0; i < 3000; i++)); do [ -e "$gate" ] && break; sleep 0.01; done
		 exec env HOME=$TMP/home-$who XDG_CONFIG_HOME=$TMP/config-$who \
			XDG_DATA_HOME=$TMP/data-$who XDG_CACHE_HOME=$TMP/cache-$who \
			"$GPURENT" launch "$o" --label "race-$who") >"$TMP/$who.out" 2>"$TMP/$who.err" &
		eval "pid_$who=\$!"
	done
	touch "$gate"
	wait "$pid_ann"; rc_ann=$?
	wait "$pid_bob"; rc_bob=$?
	won=$(cat "$TMP/ann.out" "$TMP/bob.out")
	check "round $round: one admitted, one refused by the team's budget (ann $rc_ann, bob $rc_bob)" \
		'[ "$((rc_ann + rc_bob))" = 9 ] && [ "$(wc -w <<<"$won")" = 1 ] && grep -q "team" "$TMP/ann.err" "$TMP/bob.err"'
	expect_ok as ann destroy --yes "$won"
done
pass
