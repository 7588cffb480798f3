#!/bin/bash
# The watcher's budgets in their own currencies (issue 14 part 1, issue 18): a budget in
# yuan acts on the yuan spend of PPIO (through the ppio dialect of `sim serve`) and on the
# instances billing in yuan; dollars count against it only at a configured rate. Spend a
# budget cannot count (no rate) is said once, never converted silently; spend converted at
# the rate says so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/watch.sh"

# The server keeps its own simulated world (a home of its own): the sim provider here must
# not list the PPIO instance a second time. sim_both moves both clocks.
mkdir -p "$TMP/serve-home"
GPURENT_HOME=$TMP/serve-home start_serve ppio --api-key k
use_provider ppio k
sim_both() {
	expect_ok g sim advance "$1"
	GPURENT_HOME=$TMP/serve-home expect_ok g sim advance "$1"
}
expect_ok g config set providers sim,ppio
expect_ok g config set launch.image pytorch/pytorch

# One PPIO instance (yuan; stock is advisory, the first offers may be sold out) and one
# simulated instance (dollars).
ppio=""
for off in $(g --provider ppio -o json offers gpus=1 type=on-demand 2>/dev/null |
    jq -r '.[0:12][].id'); do
	run g launch "$off" --label yuan
	case $RC in
	0) ppio=$OUT; break ;;
	7) ;;
	*) fail "launch of $off exited $RC: $ERR" ;;
	esac
done
check "a PPIO instance ($ppio)" '[[ $ppio == ppio:* ]]'
sim_offer=$(g --provider sim -o json offers gpus=1 type=on-demand 2>/dev/null |
    jq -r 'sort_by(.price_hour) | .[0].id')
sim=$(g launch "$sim_offer" --env SIM_WORKLOAD=training --label dollars) || fail "sim launch"
sim_both 10m
check "both running" '[ "$(state_of "$ppio") $(state_of "$sim")" = "running running" ]'

# ¥310 spent by an earlier PPIO instance in the last minute (PPIO bills on the wall clock),
# written as the ledger writes a closed row: ¥18,600/h for 60 s.
now=$(date +%s)
sqlite3 "$DB" \
    "INSERT INTO ledger(instance_id, provider, kind, rate_hour, start_ts, end_ts, currency)
     VALUES('ppio:0000000old', 'ppio', 0, 18600000000, $((now - 61)), $((now - 1)), 'CNY')" ||
    fail "sqlite3 insert"

# A month's budget of ¥300, no rate: the yuan spend is over it; the dollars are not counted
# (said once), and only the instance billing in yuan is stopped.
expect_ok g config set budget.month "300 CNY"
expect_ok g watch --once --interval 10m
check "the yuan budget is spent, in yuan: $OUT" \
    '[[ $OUT == *"warn budget-exceeded: ¥310."*" of ¥300.00 spent: budget.month is used up; stopping the running instances, newest first (not the 1 billing in USD, which it does not count)"* ]]'
check "not converted, and no rate claimed" '[[ $OUT != *"converted at"* ]]'
check "the dollars are not counted, and it says so: $OUT" \
    '[[ $OUT == *"warn budget-uncounted: spend in USD is not counted against budget.month (¥300.00): no rate is configured to convert it (set fx.CNY, US dollars per unit)"* ]]'
check "the yuan instance is stopped: $OUT" '[[ $OUT == *"stop-ordered $ppio"* ]]'
check "the dollar instance is left alone" '[[ $OUT != *"$sim"* ]]'
sim_both 10m
expect_ok g watch --once --interval 10m
check "the stop verified: $OUT" '[[ $OUT == *"stop-verified $ppio"* ]]'
check "the uncounted spend is said once" '[ "$(count_events budget-uncounted)" = 1 ]'
check "$ppio stopped, $sim running" '[ "$(state_of "$ppio") $(state_of "$sim")" = "stopped running" ]'
events_json
check "journaled with the budget as the policy" \
    'jq -e "[.[] | select(.kind == \"stop-ordered\")] | length == 1 and .[0].policy == \"budget.month\"" <<<"$EV" >/dev/null'

# A day's budget in dollars: the ¥310 counts only at a rate. Without one the dollars alone
# are under it, nothing is stopped, and the yuan left out is said once.
expect_ok g config unset budget.month
expect_ok g start "$ppio"
sim_both 10m
expect_ok g config set budget.day 30
expect_ok g watch --once --interval 10m
check "no rate: not over, the yuan said to be uncounted: $OUT" \
    '[[ $OUT == *"warn budget-uncounted: spend in CNY is not counted against budget.day (\$30.00): no rate is configured to convert it (set fx.CNY, US dollars per unit)"* ]] &&
     [[ $OUT != *ordered* && $OUT != *budget-exceeded* ]]'
expect_ok g watch --once --interval 10m
check "said once: $OUT" '[[ $OUT != *budget-uncounted* ]]'

# fx.CNY = 0.14: ¥310 is $43.40, over $30 with the dollars; both instances are in scope
# (the yuan one through the rate), newest first, and the message says it converted.
expect_ok g config set fx.CNY 0.14
expect_ok g watch --once --interval 10m
check "over at the rate, and says so: $OUT" \
    '[[ $OUT == *"warn budget-exceeded: \$43."*" of \$30.00 spent, converted at your configured rate: budget.day is used up; stopping the running instances, newest first"* ]]'
check "every running instance is in scope" '[[ $OUT != *"which it does not count"* ]]'
order=$(grep -o "stop-ordered [a-z]*:[0-9a-z-]*" <<<"$OUT" | awk '{print $2}' | tr '\n' ' ')
check "both stopped, newest first: $order" '[ "$order" = "$sim $ppio " ]'
check "no more uncounted spend to say" '[ "$(count_events budget-uncounted)" = 2 ]'
pass
