#!/usr/bin/env bash
# The id cache on a team's state (issue 31): each person completes ids from what they
# listed or launched, and one person's `ls` replaces only their own ids, not the ones
# everyone else completes from. ann and bob on one team's PostgreSQL state (as t944), with
# the simulated clock months before the wall's, so that the ledger's recent instances add no
# ids to completion and what completes is the id cache's alone.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
export GPURENT_SIM_TIME=1790000000	# 2026-09-21T14:13:20Z

# The instance ids $1 completes, sorted, on one line.
completes() {
	as "$1" __complete args show sim:i- | sort | tr '\n' ' '
}
team_on_pg ann bob

# Each launches one and destroys it: the ledger's rows of both end months before the wall's
# clock, so only the id cache still knows them.
expect_ok as ann launch sim:o-000075 --label a
a=$OUT
expect_ok as bob launch sim:o-000355 --label b
b=$OUT
expect_ok as ann sim advance 2m
expect_ok as ann destroy --yes "$a"
expect_ok as bob destroy --yes "$b"
expect_ok as ann sim advance 2m
check "each completes the one they launched: ann '$(completes ann)', bob '$(completes bob)'" \
	'[ "$(completes ann)" = "$a " ] && [ "$(completes bob)" = "$b " ]'

# ann rents another and lists: her ids are replaced by what she listed; bob's are not,
# though he completes her new one too, from the ledger that bills it.
expect_ok as ann launch sim:o-000075 --label c
c=$OUT
expect_ok as ann sim advance 2m
expect_ok as ann ls
check "ann's ls replaced hers: '$(completes ann)'" '[ "$(completes ann)" = "$c " ]'
check "and left bob's: '$(completes bob)'" '[ "$(completes bob)" = "$b $c " ]'
expect_ok as bob ls
check "bob's ls replaces his: '$(completes bob)'" '[ "$(completes bob)" = "$c " ]'
check "each person's rows apart in the one table" \
	'[ "$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT who, id FROM idcache WHERE kind = 1 ORDER BY who" | tr "\n" " ")" = "ann|$c bob|$c " ]'
pass
