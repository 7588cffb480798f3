#!/bin/bash
# t028: u on an instance forwards its Jupyter server in the background, as
# `gpurent forward --jupyter --background` does, and shows the URL with its token; with no
# Jupyter running it says so and how to start one. Against a real sshd and a recorded
# `jupyter server list --json`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd

# The "notebook": an HTTP server on the remote side's loopback.
mkdir -p "$T/www" && echo hello >"$T/www/hello.txt"
for ((i = 0; i < 20; i++)); do
	rport=$((20000 + RANDOM % 20000))
	(exec 3<>"/dev/tcp/127.0.0.1/$rport") 2>/dev/null || break
done
(cd "$T/www" && exec python3 -m http.server --bind 127.0.0.1 "$rport") >/dev/null 2>&1 &
web=$!
for ((i = 0; i < 50; i++)); do
	curl -sf "http://127.0.0.1:$rport/hello.txt" >/dev/null && break
	sleep 0.1
done
CLEANUP_HOOKS+=("kill $web 2>/dev/null" "\"$G\" forward --stop all >/dev/null 2>&1")

id=$("$G" launch "$("$G" offers type=on-demand -o ids -n 1)" --wait --timeout 60)
[[ $id == sim:i-* ]] || { fail "launch: $id"; finish; }

start_dash 200 40
keys 2
wait_for "^  $id .*running" 100 || fail "instances: $(screen)"
keys u
wait_for "no Jupyter server runs on $id; start one with: gpurent ssh" 150 &&
	ok "no Jupyter: says so, with the command" || fail "no-jupyter: $(screen)"

cat >"$TMP/remote-bin/jupyter" <<JUP
#!/bin/sh
[ "\$*" = "server list --json" ] || exit 1
echo '{"base_url": "/", "hostname": "localhost", "password": false, "pid": 4242, "port": $rport, "root_dir": "/root", "secure": false, "sock": "", "token": "0123abcdef", "url": "http://localhost:$rport/", "version": "2.14.2"}'
JUP
chmod +x "$TMP/remote-bin/jupyter"
keys u
wait_for "Jupyter on $id: http://127.0.0.1:[0-9]+/\?token=0123abcdef" 150 &&
	ok "the URL with its token on the status line" || fail "url: $(screen)"
url=$(screen | grep -o 'http://127.0.0.1:[0-9]*/?token=0123abcdef' | head -1)
curl -sf --max-time 10 "${url%%\?*}hello.txt" | grep -q hello && ok "and the forward answers" ||
	fail "curl $url"
keys Enter
wait_for "Jupyter +http://127.0.0.1:[0-9]+/\?token=0123abcdef" 50 &&
	ok "the detail pane shows it too" || fail "pane: $(screen)"
# u in the pane too: the status line's earlier message has gone first.
wait_gone "Jupyter on $id:" 100 || fail "the message stays: $(screen)"
keys u
wait_for "Jupyter on $id: http://127.0.0.1:[0-9]+/\?token=0123abcdef" 150 &&
	ok "u works in the pane too" || fail "pane u: $(screen)"
keys q
n=$("$G" forward --list -o json | jq length)
[ "$n" = 1 ] && ok "recorded as a background forward" || fail "forward --list: $n"
# Asked again, the live forward is used again, not a second one started.
keys u
wait_for "looking for Jupyter" 20
wait_for "Jupyter on $id: ${url%%\?*}\\?token=0123abcdef" 150 && ok "the same URL again" || fail "again: $(screen)"
n=$("$G" forward --list -o json | jq length)
[ "$n" = 1 ] && ok "no second forward" || fail "forwards: $n"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
curl -sf --max-time 10 "${url%%\?*}hello.txt" | grep -q hello &&
	ok "the forward outlives the dashboard" || fail "after quit"
"$G" forward --stop "$id" >/dev/null 2>&1 || fail "forward --stop"
finish
