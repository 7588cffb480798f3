#!/bin/bash
# Issue 29.1: a term paid ahead is a lump sum covering a period. On the simulator's clock, a
# month's term of sim:o-000362 (an RTX 3090 at $0.16/h, 20 % off: $0.128/h, $92.16 for 720 h)
# is spread by `costs` over its month, with no hourly price on top, and the machine bills by
# the hour again once the month is over.
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1767225600	# 2026-01-01T00:00:00Z: January has 744 hours
expect_ok g launch sim:o-000362t1
id=$OUT
check "the launch says what is paid at once" '[[ "$ERR" == *"1-month term, paid at once: \$92.16 (\$0.128/h, 20.00% off on demand)"* ]]'
expect_ok g sim advance 10h
expect_ok g costs -o json
# figure: term-spread
check "10 h into the term: \$1.28 spent (10 × 0.128), burning \$0.128/h, the month projected at the term's \$92.16 ($(jq -c '[.spent, .burn_hour, .projected_month]' <<<"$OUT"))" \
	'[ "$(jq -c "[.spent, .burn_hour, .projected_month, .provisioning_hour]" <<<"$OUT")" = "[1.28,0.128,92.16,0]" ]'
check "the provider line's burn from the ledger is the term's too" \
	'[ "$(jq -c "[.providers[] | select(.provider == \"sim\") | .ledger_burn_hour]" <<<"$OUT")" = "[0.128]" ]'
# 721 h after the launch: the whole term, then an hour at $0.16 on demand; the 23 h left of
# January at $0.16 make the month 92.32 + 3.68 = $96.
expect_ok g sim advance 711h
expect_ok g costs -o json
check "after the term: \$92.32 spent, \$0.16/h again, \$96.00 projected ($(jq -c '[.spent, .burn_hour, .projected_month]' <<<"$OUT"))" \
	'[ "$(jq -c "[.spent, .burn_hour, .projected_month]" <<<"$OUT")" = "[92.32,0.16,96]" ]'
check "the term was paid once" '[ "$(sqlite3 "$DB" "SELECT count(*) FROM ledger WHERE kind = 3")" = 1 ]'
pass
