#!/usr/bin/env bash
# Progress where a user waits, and no noise: launch --wait on a terminal says the state and
# the seconds waited; offers on a terminal names a provider that keeps it waiting (and who
# has answered); a 502 page from a proxy is said as its status and title, never its HTML;
# gpurent with no command is a usage error (status 2, the overview on stderr).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
command -v script >/dev/null || fail "script is not installed (util-linux)"
command -v setsid >/dev/null || fail "setsid is not installed (util-linux)"

# No command: as any usage error.
expect_rc 2 g
check "no command: the overview on stderr, nothing on stdout" \
	'[ -z "$OUT" ] && [[ $ERR == *offers*launch*costs* || $ERR == *launch*offers* ]]'
expect_rc 2 g -p sim
check "global options and no command: the same" '[ -z "$OUT" ] && [[ $ERR == *offers* ]]'

# launch --wait on a terminal (script gives it one): a line that counts the seconds.
offer=$(g offers type=on-demand -o ids -n 1)
GPURENT_SIM_SPEED=10 script -qec "'$GPURENT' launch '$offer' --wait" /dev/null >"$TMP/launch.tty" ||
	fail "launch --wait on a terminal: $(cat "$TMP/launch.tty")"
tty=$(tr '\r' '\n' <"$TMP/launch.tty" | sed 's/\x1b\[K//g')
check "the wait shows the state and the seconds: $tty" \
	'grep -Eq "^sim:i-[0-9]+: provisioning, [0-9]+s$" <<<"$tty"'
check "and ends on running, on its own line, before the id: $tty" \
	'grep -Eq "sim:i-[0-9]+: running, [0-9]+s$" <<<"$tty" && [[ $(tail -n 1 <<<"$tty") == sim:i-* ]]'
GPURENT_SIM_SPEED=10 expect_ok g launch "$(g offers type=on-demand -o ids -n 1)" --wait
check "without a terminal: only the id" '[[ $OUT == sim:i-* ]] && [ -z "$ERR" ]'

# A provider that never answers, beside sim: offers on a terminal names it while it waits.
start_hanging_socket
setsid script -qec "GPURENT_VAST_URL=http://127.0.0.1:$port VAST_API_KEY=k '$GPURENT' -p sim,vast offers -n 1" \
	/dev/null >"$TMP/offers.tty" 2>&1 &
offers_pid=$!
CLEANUP_HOOKS+=("kill -- -$offers_pid 2>/dev/null; wait $offers_pid 2>/dev/null")
wait_until 150 'grep -q "waiting for vast" "$TMP/offers.tty"'
check "offers names the provider it waits for, and who answered: $(cat "$TMP/offers.tty")" \
	'grep -Eq "gpurent: waiting for vast \([0-9]+s; sim answered\)" "$TMP/offers.tty"'
kill -- "-$offers_pid" 2>/dev/null
wait "$offers_pid" 2>/dev/null
expect_rc 5 env GPURENT_VAST_URL=http://127.0.0.1:1 VAST_API_KEY=k "$GPURENT" -p vast offers
check "without a terminal no waiting note" '[[ $ERR != *"waiting for"* ]]'

# A proxy's 502 page: the status and its title, no markup.
python3 -c '
import http.server, sys
body = b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\r\n"
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = answer
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
' >"$TMP/502.port" &
bad_pid=$!
CLEANUP_HOOKS+=("kill $bad_pid 2>/dev/null; wait $bad_pid 2>/dev/null")
wait_until 100 '[ -s "$TMP/502.port" ]'
bad=$(cat "$TMP/502.port")
for p in vast runpod lambda ppio; do
	P=${p^^}
	expect_rc 5 env "GPURENT_${P}_URL=http://127.0.0.1:$bad" "${P}_API_KEY=k" "$GPURENT" -p "$p" offers
	check "$p: a 502 page is its status and title: $ERR" \
		'[[ $ERR == *"502 Bad Gateway (HTTP 502)"* ]] && [[ $ERR != *"<"* ]]'
done
pass
