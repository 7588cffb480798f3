#!/usr/bin/env bash
# The password of a team's PostgreSQL state from the vault (issue 31): a server that asks
# for one (scram-sha-256, tests/pg/server --password) refuses gpurent clearly until
# `gpurent login state` has stored it; then every connection gives it to libpq, and it is
# never in the argv or the environment of gpurent's children, in its output, its errors or
# its events. A ~/.pgpass (PGPASSFILE) that has it serves as before.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
start_pg --password
PW=$GPURENT_TEST_PG_PASSWORD
export -n GPURENT_TEST_PG_PASSWORD	# the test's secret, not gpurent's children's
export PGPASSFILE=$TMP/pgpass	# never the user's ~/.pgpass
export GPURENT_STATE_URL=$GPURENT_TEST_PG_PASSWORD_URL
mkdir -m 700 "$GPURENT_HOME"

expect_rc 1 g costs -o json
check "no password: refused, saying where one goes" \
	'grep -q "the server asks for a password: store it with '"'"'gpurent login state'"'"'" <<<"$ERR"'

expect_ok g login state --stdin <<<"$PW"
check "stored in the vault" 'grep -q "stored the password of the PostgreSQL state" <<<"$ERR"'
check "and listed (never shown)" 'g login --list | grep -q "^default  *state  *store"'
expect_ok g costs -o json
check "with it, the state opens: $ERR" 'jq -e ".spent == 0" <<<"$OUT" >/dev/null'

# A child of a command that holds the connection (notify.command, for the watcher's warning
# of an instance past runtime.max) writes what it can see: its parent's argv and
# environment, its own environment, and every process's argv.
cat >"$TMP/notify.sh" <<'SH'
#!/bin/sh
tr '\0' '\n' </proc/$PPID/cmdline >>"$SEEN"
tr '\0' '\n' </proc/$PPID/environ >>"$SEEN"
env >>"$SEEN"
ps -eo args >>"$SEEN"
echo done >>"$SEEN.done"
SH
chmod +x "$TMP/notify.sh"
export SEEN=$TMP/seen
expect_ok g config set team.name lab
expect_ok g config set notify.command "$TMP/notify.sh"
expect_ok g -o ids launch --gpu rtx3090
expect_ok g config set runtime.max 1h
expect_ok g config set runtime.action notify
expect_ok g sim advance 2h
expect_ok g watch --once
check "the watcher warned: $OUT" 'grep -q "^warn runtime" <<<"$OUT"'
check "the child ran: $OUT" '[ -s "$SEEN" ] && [ -f "$SEEN.done" ]'
check "the password in no argv or environment a child sees" '! grep -qF "$PW" "$SEEN"'
check "nor in the output and errors" '! grep -qF "$PW" <<<"$OUT$ERR"'
expect_ok g events -o json
check "nor in the events" '! grep -qF "$PW" <<<"$OUT"'

expect_ok g logout state
expect_ok g login state --stdin <<<"not-$PW"
expect_rc 1 g costs
check "a wrong one: the server's refusal, without the password: $ERR" \
	'grep -q "password authentication failed" <<<"$ERR" && ! grep -qF "$PW" <<<"$ERR"'

expect_ok g logout state
port=${GPURENT_TEST_PG_PASSWORD_URL##*:}
port=${port%%/*}
printf '127.0.0.1:%s:gpurent_pw:gpurent_pw:%s\n' "$port" "$PW" >"$PGPASSFILE"
chmod 600 "$PGPASSFILE"
expect_ok g costs -o json
check "a .pgpass serves without the vault" 'jq -e ".spent > 0" <<<"$OUT" >/dev/null'
pass
