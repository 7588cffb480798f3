#!/usr/bin/env bash
# Where the state is (issue 31): GPURENT_STATE_URL, else the profile's state.url, else the
# file; a URL that carries a password is refused before anything connects (the password
# belongs in ~/.pgpass or a service file), and so is a state.url that is not a URL.
. "$(dirname "$0")/lib.sh"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

GPURENT_STATE_URL="postgresql://team:secret@127.0.0.1:$port/gpurent" expect_rc 2 g costs
check "a password in the URL is refused" 'grep -q "carries a password" <<<"$ERR"'
check "and not echoed" '! grep -q secret <<<"$ERR"'

expect_ok g config set state.url "postgresql://team@127.0.0.1:$port/gpurent"
expect_rc 1 g costs
check "state.url is where the state is (nothing listens there)" \
	'grep -q "cannot connect to the PostgreSQL state database" <<<"$ERR"'
# ls lends the state to the simulator while it is still being opened (state_open_begin):
# one that never opens fails the listing with why, and lists nothing.
expect_rc 1 g ls
check "ls says the state did not open: $ERR" \
	'grep -q "sim: cannot connect to the PostgreSQL state database" <<<"$ERR"'
check "and lists nothing" '[ -z "$OUT" ]'
GPURENT_STATE_URL="postgresql://team:secret@127.0.0.1:$port/gpurent" expect_rc 2 g ls
check "nor does one that carries a password" 'grep -q "carries a password" <<<"$ERR"'
GPURENT_STATE_URL=$TMP/elsewhere.db expect_rc 2 g costs
check "GPURENT_STATE_URL comes first, and must be a URL" \
	'grep -q "GPURENT_STATE_URL must be a postgresql:// URL" <<<"$ERR"'
expect_ok g config set state.url "$TMP/elsewhere.db"
expect_rc 2 g costs
check "state.url must be a URL" 'grep -q "state.url must be a postgresql:// URL" <<<"$ERR"'
expect_ok g config unset state.url
expect_ok g costs -o json
check "unset: the file" '[ -f "$DB" ]'
pass
