#!/usr/bin/env bash
# Team keys listed and removed (issue 31): in a team profile `gpurent login --list` shows the
# team's watcher keys (who published each, from which host, its fingerprint) and the team
# keys sealed to them (provider, who stored it, when, to which watcher key), never a key;
# `logout --team PROVIDER` removes a team key, all or none; `logout --team-watcher`
# withdraws this machine's watcher key (its public half from the state, with the team keys
# sealed to it, and its secret half from its vault) and says so. A member (ann) and two
# watcher machines (w1, w2), each with a home of its own, on one team's PostgreSQL state.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg
KEY=vk-team-0123456789abcdef
M=$TMP/member W1=$TMP/w1 W2=$TMP/w2
mkdir -m 700 "$M" "$W1" "$W2"
m() { GPURENT_HOME=$M "$GPURENT" "$@"; }
w1() { GPURENT_HOME=$W1 "$GPURENT" "$@"; }
w2() { GPURENT_HOME=$W2 "$GPURENT" "$@"; }
for h in m w1 w2; do
	expect_ok $h config set state.url "$GPURENT_TEST_PG_URL"
	expect_ok $h config set team.name lab
done
expect_ok m config set team.user ann
expect_ok w1 config set team.user wat1
expect_ok w2 config set team.user wat2
sql() { psql "$GPURENT_TEST_PG_URL" -Atc "$1"; }

expect_ok w1 login --team-watcher
expect_ok w2 login --team-watcher
k1=$(sql "SELECT public_key FROM team_watchers WHERE added_by = 'wat1'")
k2=$(sql "SELECT public_key FROM team_watchers WHERE added_by = 'wat2'")
f1=${k1:0:16} f2=${k2:0:16}
check "two watcher keys published: $k1 $k2" '[ ${#k1} = 64 ] && [ ${#k2} = 64 ] && [ "$k1" != "$k2" ]'
expect_ok m login --team vast --no-verify --stdin <<<"$KEY"
expect_ok m login --team runpod --no-verify --stdin <<<"$KEY-rp"

# The member's listing: the team's two watcher keys, then each key sealed to each; none of
# them this machine's. Who, which watcher key, from which host; never the key.
expect_ok m -o json login --list
list=$OUT
check "the key is never listed" '[[ $list != *"$KEY"* ]]'
want='[["team-watcher","","wat1","'$f1'",false],["team-watcher","","wat2","'$f2'",false],'
want+='["team","runpod","ann","'$f1'",false],["team","runpod","ann","'$f2'",false],'
want+='["team","vast","ann","'$f1'",false],["team","vast","ann","'$f2'",false]]'
# (Listed in the order published, by key within one second: compared as sets here.)
check "the team's watcher keys and the keys sealed to them: $list" \
	'[ "$(jq -c "[.[] | select(.team == \"lab\") | [.source, .provider // \"\", .stored_by, .watcher_key, .active]] | sort" <<<"$list")" = "$(jq -c sort <<<"$want")" ]'
host=$(hostname)
check "each with its watcher's host and when it was stored" \
	'jq -e "[.[] | select(.team == \"lab\")] | all(.watcher_host == \"'"${host:0:255}"'\" and (.stored | test(\"^20[0-9-]+T\")))" <<<"$list" >/dev/null'
expect_ok w2 -o json login --list
check "on w2: its own watcher key and the keys sealed to it are the active ones: $OUT" \
	'[ "$(jq -c "[.[] | select(.team == \"lab\" and .active) | [.source, .provider // \"\", .watcher_key]] | sort" <<<"$OUT")" = "[[\"team\",\"runpod\",\"$f2\"],[\"team\",\"vast\",\"$f2\"],[\"team-watcher\",\"\",\"$f2\"]]" ]'
expect_ok m login --list
check "the table has the team's columns: $OUT" \
	'head -1 <<<"$OUT" | grep -q "BY *WATCHER KEY *HOST" && grep -q "^- *vast *team .* ann *$f1 " <<<"$OUT"'
expect_ok g -o json login --list
check "a personal profile's listing is as it was: $OUT" '[ "$OUT" = "[]" ]'
expect_ok g -o json --fields profile,provider login --list

# logout --team: each named provider's key, every copy; all or none.
expect_rc 3 m logout --team runpod gcp
check "an unknown one removes nothing: $ERR" \
	'[[ $ERR == *"team '"'"'lab'"'"' has no team key for '"'"'gcp'"'"'"* ]] && [ "$(sql "SELECT count(*) FROM team_keys WHERE provider = '"'"'runpod'"'"'")" = 2 ]'
expect_ok m logout --team vast
check "vast's team key removed, both copies: $ERR" \
	'[[ $ERR == *"removed the team key for '"'"'vast'"'"' of team '"'"'lab'"'"' (sealed for 2 watcher key(s))"* ]] &&
	 [ "$(sql "SELECT provider, count(*) FROM team_keys GROUP BY provider")" = "runpod|2" ]'
expect_rc 3 m logout --team vast
expect_rc 2 g logout --team vast
check "a personal profile has no team: $ERR" '[[ $ERR == *"--team needs a team profile"* ]]'

# logout --team-watcher on w1: its public half and the keys sealed to it leave the state,
# its secret half its vault; w2's are untouched.
expect_ok w1 logout --team-watcher
check "w1 says what it withdrew: $ERR" \
	'[[ $ERR == *"no longer a watcher of team '"'"'lab'"'"' (key $f1): the team keys sealed to it (runpod) can no longer be opened by it"* ]]'
check "the state has w2's key alone, and runpod's key sealed to it alone" \
	'[ "$(sql "SELECT added_by FROM team_watchers")" = wat2 ] && [ "$(sql "SELECT public_key FROM team_keys")" = "$k2" ]'
expect_ok w1 -o json login --list
check "w1's vault has no watcher key left: $OUT" \
	'[ "$(jq -c "[.[] | select(.provider == \"team-watcher\" or .active)]" <<<"$OUT")" = "[]" ]'
expect_rc 3 w1 logout --team-watcher
check "a second time: none held: $ERR" '[[ $ERR == *"holds no watcher key"* ]]'
expect_ok w2 -o json login --list
check "w2 still opens runpod's key: $OUT" \
	'[ "$(jq -c "[.[] | select(.source == \"team\") | [.provider, .watcher_key, .active]]" <<<"$OUT")" = "[[\"runpod\",\"$f2\",true]]" ]'
check "nothing printed a key" '[[ "$OUT$ERR" != *"$KEY"* ]]'

# The team's state out of reach: this machine's keys still listed, the failure said.
GPURENT_STATE_URL=postgresql://nobody@127.0.0.1:1/none expect_rc 1 w2 -o json login --list
check "w2's own keys listed, the team's said not to be: $ERR" \
	'[ "$(jq -c "[.[] | [.source, .provider]]" <<<"$OUT")" = "[[\"store\",\"team-watcher\"]]" ] &&
	 [[ $ERR == *"keys are not listed: "* ]]'
pass
