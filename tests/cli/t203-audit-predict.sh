#!/bin/bash
# audit shows what --predict saved or cost against the reactive policy (issue 14 part 4):
# for a group created with --predict, the reactive decisions are replayed over the same
# recorded load (table group_load) and both are reported: member-hours, spend, time above
# target. Checked against a fixture computed by hand.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

now=$GPURENT_SIM_TIME
expect_ok g group create tide --gpu A100 --min 1 --max 3 --target-util 50 --cooldown 1h \
	--window 1h --predict
expect_ok g group create plain --gpu A100 --min 1 --max 3 --target-util 50

# The load the watcher recorded, a pass every 30 minutes (util %, members observed):
#   t0 = now-3h   90 1   demand  90
#   t1 = now-2.5h 80 2   demand 160   (the predictive group had scaled out ahead)
#   t2 = now-2h   40 2   demand  80
#   t3 = now-1.5h 40 1   demand  40   (and in)
#   t4 = now-1h   30 1   demand  30   (the last record covers no time)
# As it ran: member-hours (1 + 2 + 2 + 1) x 0.5 = 3.0; above 50 % at t0 and t1: 1.0 h.
# Reactive replay, starting with t0's one member (out above 60 %, in below 40 %, window and
# cooldown 1 h, each decision at once, the demand spread over the members):
#   t0: 90/1 = 90, window mean 90 > 60: out, 2 members; 90/2 = 45 for the half hour
#   t1: 160/2 = 80, mean (90 + 80)/2 = 85 > 60 but 30 min since t0: cooldown; 80 > 50: above
#   t2: 80/2 = 40, mean (80 + 40)/2 = 60, not above 60: steady
#   t3: 40/2 = 20, mean (40 + 20)/2 = 30 < 40, 90 min since t0: in, 1 member; 40/1 = 40
#   t4: 30/1 = 30, mean 25, at min: hold
# Reactive: member-hours (2 + 2 + 2 + 1) x 0.5 = 3.5; above target 0.5 h; 2 decisions.
# Members cost $2.00 a member-hour (the ledger: $4.00 for 2 h), so $6.00 as run against
# $7.00 reactive: --predict saved $1.00, with 0.5 h more above target.
rows=""
for r in "$((now - 10800)) 90 1" "$((now - 9000)) 80 2" "$((now - 7200)) 40 2" \
	"$((now - 5400)) 40 1" "$((now - 3600)) 30 1"; do
	set -- $r
	rows+="${rows:+,}('tide', $1, $2, $3), ('plain', $1, $2, $3)"
done
sqlite3 "$DB" "INSERT INTO group_load(name, at, util, members) VALUES $rows;
	INSERT INTO ledger(instance_id, provider, label, kind, rate_hour, start_ts, end_ts, currency)
	VALUES('sim:i-009001', 'sim', 'group:tide', 0, 2000000, $((now - 10800)), $((now - 3600)), 'USD')" ||
	fail "sqlite3 insert"

expect_ok g -o json audit --offline
P=$(jq -c .predict <<<"$OUT")
check "one group created with --predict: $P" '[ "$(jq -r "[.[].group] | join(\",\")" <<<"$P")" = tide ]'
check "as it ran: 3.0 member-hours, \$6.00, 1.0 h above target: $P" \
	'jq -e ".[0] | .records == 5 and .predictive.member_hours == 3 and .predictive.spend == 6
		and .predictive.above_target_hours == 1 and .predictive.decisions == null" <<<"$P" >/dev/null'
check "reactive replay: 3.5 member-hours, \$7.00, 0.5 h above target, 2 decisions: $P" \
	'jq -e ".[0].reactive | .member_hours == 3.5 and .spend == 7 and .above_target_hours == 0.5
		and .decisions == 2" <<<"$P" >/dev/null'
check "saved \$1.00 and half a member-hour, half an hour more above target: $P" \
	'jq -e ".[0] | .saved == 1 and .member_hours_saved == 0.5 and .above_target_hours_more == 0.5" <<<"$P" >/dev/null'
check "in the members' currency: $P" \
	'jq -e ".[0] | .currency == \"USD\" and .converted == false and .predictive.currency == \"USD\" and .reactive.currency == \"USD\"" <<<"$P" >/dev/null'

expect_ok g audit --offline
check "the table says it: $OUT" \
	'[[ $OUT == *"--predict against the reactive policy"* ]] &&
	 grep -Eq "^tide +predictive +3\.00 +\\\$6\.00 +1\.00$" <<<"$OUT" &&
	 grep -Eq "^tide +reactive +3\.50 +\\\$7\.00 +0\.50$" <<<"$OUT" &&
	 [[ $OUT == *"tide: --predict saved \$1.00, with 0.50 h more above target"* ]]'

# Outside the window (--since 30m): no records, nothing replayed, and no price needed.
expect_ok g -o json audit --offline --since 30m
check "no records in the window" \
	'jq -e ".predict[0] | .records == 0 and .predictive.member_hours == 0 and .reactive.member_hours == 0" <<<"$OUT" >/dev/null'
# A member billed in yuan as well (28.00 for its 2 h): the spend is known only at a rate.
sqlite3 "$DB" \
	"INSERT INTO ledger(instance_id, provider, label, kind, rate_hour, start_ts, end_ts, currency)
	 VALUES('sim:i-009002', 'sim', 'group:tide', 0, 14000000, $((now - 10800)), $((now - 3600)), 'CNY')" ||
	fail "sqlite3 insert"
expect_ok g -o json audit --offline
check "dollars and yuan are not added up without a rate: $(jq -c .predict <<<"$OUT")" \
	'jq -e ".predict[0] | .currency == null and .predictive.spend == null and .reactive.spend == null and .saved == null" <<<"$OUT" >/dev/null'
expect_ok g audit --offline
check "and the table says why" 'grep -q "^tide: no spend: its members billed in several currencies" <<<"$OUT"'
# At fx.CNY = 0.14: (4.00 + 28.00 x 0.14) / 4 h = 1.98 a member-hour: 3.0 h 5.94, 3.5 h 6.93.
expect_ok g config set fx.CNY 0.14
expect_ok g -o json audit --offline
check "at the rate, in dollars, marked converted: $(jq -c .predict <<<"$OUT")" \
	'jq -e ".predict[0] | .currency == \"USD\" and .converted == true and .predictive.spend == 5.94 and .reactive.spend == 6.93 and (.saved - 0.99 | fabs) < 0.000001" <<<"$OUT" >/dev/null'
expect_ok g audit --offline
check "and the table says so" \
	'[[ $OUT == *"tide: --predict saved \$0.99"* ]] && grep -q "^tide: its members billed in several currencies, added$" <<<"$OUT" && grep -q "^in US dollars at your configured rate" <<<"$OUT"'
expect_ok g config unset fx.CNY

# Without a ledger row for its members the spend is unknown, never 0.
sqlite3 "$DB" "DELETE FROM ledger" || fail "sqlite3 delete"
expect_ok g -o json audit --offline
check "spend unknown without a price: $(jq -c .predict <<<"$OUT")" \
	'jq -e ".predict[0] | .predictive.spend == null and .reactive.spend == null and .saved == null" <<<"$OUT" >/dev/null'
pass
