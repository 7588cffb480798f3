#!/usr/bin/env bash
# gpurent forward against a real sshd and a real HTTP server on the "remote" side: the
# printed URL answers through the tunnel; background forwards are listed, stopped, and ended
# when their instance stops.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd
PY=$(command -v /usr/bin/python3 || command -v python3)

id=$(launch_fresh type=on-demand -- --wait --timeout 60)
mkdir -p "$TMP/www"
echo "through the tunnel" >"$TMP/www/hello.txt"
# The model server on the instance: loopback only, as a real one would be.
for ((i = 0; i < 20; i++)); do
	rport=$((20000 + RANDOM % 20000))
	(exec 3<>"/dev/tcp/127.0.0.1/$rport") 2>/dev/null || break
done
(cd "$TMP/www" && exec "$PY" -m http.server --bind 127.0.0.1 "$rport") >/dev/null 2>&1 &
http_pid=$!
CLEANUP_HOOKS+=("kill $http_pid 2>/dev/null; wait $http_pid 2>/dev/null")
# Up when it answers: a loaded machine starts Python slowly (bounded, 60 s).
for ((i = 0; i < 600; i++)); do
	curl -sf "http://127.0.0.1:$rport/hello.txt" >/dev/null && break
	sleep 0.1
done
check "the remote HTTP server answers" 'curl -sf "http://127.0.0.1:$rport/hello.txt" >/dev/null'

# Foreground, LOCAL_PORT 0: a free port, its URL on stdout, Ctrl-C ends it with 0.
"$GPURENT" forward "$id" "$rport:0" >"$TMP/fg.out" 2>"$TMP/fg.err" &
fg_pid=$!
CLEANUP_HOOKS+=("kill $fg_pid 2>/dev/null; wait $fg_pid 2>/dev/null")
for ((i = 0; i < 300; i++)); do
	url=$(head -1 "$TMP/fg.out")
	[ -n "$url" ] && break
	kill -0 "$fg_pid" 2>/dev/null || break
	sleep 0.1
done
check "the URL is printed (err: $(cat "$TMP/fg.err"))" '[[ $url == http://127.0.0.1:[0-9]* ]]'
check "fetched through the printed URL" '[ "$(curl -sf "$url/hello.txt")" = "through the tunnel" ]'
lport=${url##*:}
check "bound to loopback only" 'ss -ltn | grep -q "127.0.0.1:$lport " && ! ss -ltn | grep -Eq "(\*|0.0.0.0|\[::\]):$lport "'
kill -INT "$fg_pid"
wait "$fg_pid"
rc=$?
check "Ctrl-C ends a foreground forward cleanly (exit $rc)" '[ $rc = 0 ]'
check "and its port is closed" '! curl -sf "$url/hello.txt" >/dev/null'

# Background, asking for the port the server itself holds here: another one, said so.
expect_ok g forward --background "$id" "$rport"
url=$OUT
check "a taken local port is replaced and named" '[[ $ERR == *"local port $rport is taken; using"* ]] && [[ $url == http://127.0.0.1:* && $url != *":$rport" ]]'
check "the background forward answers" '[ "$(curl -sf "$url/hello.txt")" = "through the tunnel" ]'
expect_ok g forward --list -o json
check "--list shows it" '[ "$(jq -r ".[0].url" <<<"$OUT")" = "$url" ] && [ "$(jq -r ".[0].remote_port" <<<"$OUT")" = "$rport" ]'
bg_pid=$(jq -r '.[0].pid' <<<"$OUT")
CLEANUP_HOOKS+=("kill $bg_pid 2>/dev/null")
expect_ok g forward --stop "$id"
check "--stop ends it" '! kill -0 "$bg_pid" 2>/dev/null && ! curl -sf "$url/hello.txt" >/dev/null'
expect_ok g forward --list -o json
check "and --list no longer shows it" '[ "$(jq length <<<"$OUT")" = 0 ]'
expect_rc 3 g forward --stop "$id"

# --jupyter: no server yet -> how to start one; then a recorded `jupyter server list --json`.
expect_rc 3 g forward "$id" --jupyter
check "no Jupyter: the command that starts one" '[[ $ERR == *"no Jupyter server runs"*"jupyter lab --no-browser"* ]]'
cat >"$TMP/remote-bin/jupyter" <<JUP
#!/bin/sh
[ "\$*" = "server list --json" ] || exit 1
echo '{"base_url": "/", "hostname": "localhost", "password": false, "pid": 4242, "port": $rport, "root_dir": "/root", "secure": false, "sock": "", "token": "0123abcdef", "url": "http://localhost:$rport/", "version": "2.14.2"}'
JUP
chmod +x "$TMP/remote-bin/jupyter"
expect_ok g forward --background "$id" --jupyter
url=$OUT
check "the Jupyter URL carries its token" '[[ $url == http://127.0.0.1:*/?token=0123abcdef ]]'
check "and answers" 'curl -sf "$url" | grep -q hello.txt'
expect_ok g forward --stop all

# A forward whose instance stops is ended and reported.
expect_ok g forward --background "$id" "$rport:0"
url=$OUT
bg_pid=$(g forward --list -o json | jq -r '.[0].pid')
CLEANUP_HOOKS+=("kill $bg_pid 2>/dev/null")
expect_ok g stop "$id" --wait --timeout 60
expect_ok g forward --list -o json
check "a stopped instance's forward is ended and reported" \
	'[[ $ERR == *"ended the forward"*"is stopped"* ]] && [ "$(jq length <<<"$OUT")" = 0 ] && ! kill -0 "$bg_pid" 2>/dev/null'
expect_rc 1 g forward "$id" 8888
check "no forward to a stopped instance" '[[ $ERR == *stopped* ]]'
expect_rc 2 g forward "$id" 99999
pass
