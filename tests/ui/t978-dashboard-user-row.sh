#!/bin/bash
# t978: who launched an instance (USER) is shown in a team profile only, as ls shows it:
# neither `gpurent show` nor the dashboard's detail pane has a USER row in a personal
# profile, where it could only ever be '-' (JSON keeps its user key, as ls -o json does);
# in a team profile (a PostgreSQL state of the test's own) both name ann, and the costs view
# holds the team's spend to the team's budget, kept in that state.
. "$(dirname "$0")/lib.sh"
use_pg
# The detail pane's USER row ("SSH USER" is another).
user_row() { screen | grep -E '^ *USER +[^ ]'; }

id=$(launch_fresh type=on-demand -- -o ids) || { fail "launch: $id"; finish; }
out=$("$G" show "$id")
grep -q '^user ' <<<"$out" && fail "a personal show has a USER row: $out" || ok "show: no USER row"
grep -q '^ssh_user ' <<<"$out" && ok "show: its other rows" || fail "show: $out"
[ "$("$G" -o json show "$id" | jq -r 'has("user")')" = true ] && ok "show -o json keeps user" ||
	fail "show -o json: no user key"
start_dash 160 40
keys 2
wait_for "^  $id " 100 || { fail "instances: $(screen)"; finish; }
keys Enter
wait_for "^ *SSH USER " 50 || { fail "pane: $(screen)"; finish; }
user_row >/dev/null && fail "the pane has a USER row: $(user_row)" || ok "pane: no USER row"
keys q q
tm kill-server 2>/dev/null

# The personal one gone, the pane opens on the team's one.
"$G" destroy --yes "$id" >/dev/null || fail "destroy $id"
start_pg
"$G" config set state.url "$GPURENT_TEST_PG_URL" >/dev/null &&
	"$G" config set team.name ml >/dev/null && "$G" config set team.user ann >/dev/null ||
	{ fail "team profile"; finish; }
tid=$(launch_fresh type=on-demand -- -o ids) || { fail "team launch: $tid"; finish; }
out=$("$G" show "$tid")
grep -q '^user  *ann$' <<<"$out" && ok "team show: USER ann" || fail "team show: $out"
start_dash 160 40
keys 2
wait_for "^  $tid " 100 || { fail "team instances: $(screen)"; finish; }
keys Enter
wait_for "^ *SSH USER " 50 || { fail "team pane: $(screen)"; finish; }
[[ $(user_row) =~ USER\ +ann ]] && ok "team pane: USER ann" || fail "team pane: $(screen)"
keys q q
tm kill-server 2>/dev/null

# The costs view of a team profile: the team's budget (its state's), not the profile's key.
"$G" budget set --team day 300 >/dev/null && "$G" config set budget.day 5 >/dev/null ||
	fail "budgets"
start_dash 120 40 --view costs
wait_for '^  Budget/day .* of \$300 projected' 50 && ok "the team's budget.day" ||
	fail "team budget: $(screen)"
keys q
finish
