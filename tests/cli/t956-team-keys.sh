#!/usr/bin/env bash
# Team keys (issue 31): `gpurent login --team-watcher` on the watcher's machine makes its key
# pair (the secret half in its own vault, the public half in the team's state);
# `gpurent login --team vast` on a member's seals the key to it, so that the state holds
# only bytes the member's own reading cannot open. The watcher acts on the team's instances
# only with that key: without it, it says so once a run (its log and events) and leaves
# them alone, even with a personal key that works. The member and the watcher have homes of
# their own; the provider is vast over HTTP (sim serve), which takes one key.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/pg.sh"
start_pg
KEY=vk-team-0123456789abcdef
GPURENT_SIM_TIME=$(($(date +%s) - 3 * 3600)) start_serve vast --api-key "$KEY"
export GPURENT_VAST_URL=$SERVE_URL
M=$TMP/member W=$TMP/watcher
mkdir -m 700 "$M" "$W"
m() { GPURENT_HOME=$M "$GPURENT" "$@"; }
w() { GPURENT_HOME=$W "$GPURENT" "$@"; }
for h in m w; do
	expect_ok $h config set state.url "$GPURENT_TEST_PG_URL"
	expect_ok $h config set team.name lab
	expect_ok $h config set providers vast
	expect_ok $h config set runtime.max 1h
	# Each has the key as a personal one too: one company account.
	expect_ok $h login vast --stdin <<<"$KEY"
done
count_events() {
	w -o json events | jq --arg k "$1" '[.[] | select(.kind == $k)] | length'
}

expect_rc 3 m login --team vast --stdin <<<"$KEY"
check "no watcher yet: nothing to seal to" 'grep -q "has no watcher key to seal a team key to" <<<"$ERR"'
expect_rc 2 g login --team-watcher
check "a personal profile has no team" 'grep -q "needs a team profile" <<<"$ERR"'
expect_ok w login --team-watcher
check "the watcher's key pair: $ERR" 'grep -q "is now a watcher of team '"'"'lab'"'"'" <<<"$ERR"'

offer=$(m -o ids offers gpus=1 type=on-demand | head -1)
inst=$(m launch "$offer" --label long-run) || fail "launch"
expect_ok serve_g vast sim advance 2h

# Without a team key, two passes of one run: said once, the instance left running.
GPURENT_HOME=$W "$GPURENT" -v watch --interval 1s >"$TMP/w.out" 2>"$TMP/w.err" &
pid=$!
CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
wait_until 300 '[ "$(grep -c "^gpurent: watch: " "$TMP/w.err")" -ge 2 ]' ||
	fail "two passes: $(cat "$TMP/w.err")"
kill "$pid"
wait "$pid"
OUT=$(cat "$TMP/w.out") ERR=$(cat "$TMP/w.err")
check "said once in the run: $OUT" \
	'[ "$(grep -c "alert no-team-key: no team key for '"'"'vast'"'"' in team '"'"'lab'"'"'" <<<"$OUT")" = 1 ]'
check "and not every pass on stderr: $ERR" '! grep -q "team key" <<<"$ERR"'
check "one event" '[ "$(count_events no-team-key)" = 1 ]'
check "no order with the personal key" '[[ $OUT != *stop-ordered* ]] && [ "$(m -o json show "$inst" | jq -r .state)" = running ]'

expect_ok m login --team vast --stdin <<<"$KEY"
check "stored, sealed: $ERR" 'grep -q "stored the team key for '"'"'vast'"'"' of team '"'"'lab'"'"', sealed for its watchers (1)" <<<"$ERR"'
OUT=$(psql "$GPURENT_TEST_PG_URL" -Atc "SELECT length(sealed), encode(sealed, 'hex') FROM team_keys WHERE team = 'lab' AND provider = 'vast'")
hexkey=$(printf '%s' "$KEY" | od -An -tx1 | tr -d ' \n')
check "the state holds sealed bytes (48 more than the key), not the key: $OUT" \
	'[ "${OUT%%|*}" = $((${#KEY} + 48)) ] && [[ ${OUT#*|} != *"$hexkey"* ]]'
expect_rc 10 m watch --once
check "the member's machine cannot open it: $OUT" \
	'grep -q "this machine holds no watcher key of team '"'"'lab'"'"'" <<<"$OUT"'

# A child of the watcher (notify.command) sees the key nowhere: not in the watcher's argv or
# environment, nor in any process's argv but the test's provider's own (--api-key).
cat >"$TMP/notify.sh" <<'SH'
#!/bin/sh
tr '\0' '\n' </proc/$PPID/cmdline >>"$SEEN"
tr '\0' '\n' </proc/$PPID/environ >>"$SEEN"
ps -eo args | grep -v "sim serve --dialect vast" >>"$SEEN"
SH
chmod +x "$TMP/notify.sh"
export SEEN=$TMP/seen
expect_ok w config set notify.command "$TMP/notify.sh"
expect_ok w watch --once --interval 1m
check "with the team key, the watcher acts: $OUT" '[[ $OUT == *"stop-ordered $inst"* ]]'
check "its child saw no key" '[ -s "$SEEN" ] && ! grep -qF "$KEY" "$SEEN"'
check "no key in its output, errors or events" \
	'! grep -qF "$KEY" <<<"$OUT$ERR$(cat "$TMP/w.out" "$TMP/w.err")$(w -o json events)"'
pass
