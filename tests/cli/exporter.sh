# exporter.sh - start `gpurent exporter` for the t06x tests: source after lib.sh.
#
#   start_exporter [OPTIONS...]   start one on a free loopback port; sets EXPORTER_URL
#                                 (http://127.0.0.1:PORT/metrics) and EXPORTER_PID
#   scrape [CURL OPTIONS...]      GET /metrics into $OUT, the HTTP status in $CODE
#   wait_scrape PATTERN           scrape until the body matches the regex (bounded)
EXPORTER_COUNT=0
start_exporter() {
	local i log
	EXPORTER_COUNT=$((EXPORTER_COUNT + 1))
	log="$TMP/exporter-$EXPORTER_COUNT"
	"$GPURENT" exporter --listen 127.0.0.1:0 --interval 1 "$@" >"$log.out" 2>"$log.err" &
	EXPORTER_PID=$!
	CLEANUP_HOOKS+=("kill $EXPORTER_PID 2>/dev/null; wait $EXPORTER_PID 2>/dev/null")
	for ((i = 0; i < 100; i++)); do
		EXPORTER_URL=$(sed -n 's/^gpurent exporter: serving \(http[^ ]*\)$/\1/p' "$log.err")
		[ -n "$EXPORTER_URL" ] && return 0
		kill -0 "$EXPORTER_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log.err" >&2
	fail "gpurent exporter did not start"
}

scrape() {
	CODE=$(curl -s -o "$TMP/scrape" -w '%{http_code}' --max-time 5 "$@" "$EXPORTER_URL")
	OUT=$(cat "$TMP/scrape")
}

wait_scrape() {
	local i
	for ((i = 0; i < 100; i++)); do
		scrape
		[ "$CODE" = 200 ] && grep -E -q -- "$1" <<<"$OUT" && return 0
		sleep 0.1
	done
	fail "no scrape matched '$1' (last status $CODE)"
}

# promtool check metrics on $OUT: the exposition must parse (status 1 is a parse error);
# the only lints allowed are those that dcgm-exporter's own names draw: its label modelName
# (camelCase) and its counter DCGM_FI_DEV_ECC_DBE_VOL_TOTAL (upper-case _TOTAL).
promtool_metrics_ok() {
	local msg rc
	command -v promtool >/dev/null || fail "promtool is missing: run scripts/install-deps"
	msg=$(promtool check metrics <<<"$OUT" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	[ "$rc" -eq 3 ] || { echo "$msg" >&2; return 1; }
	if grep -v -E -q -e "^DCGM_FI_DEV_[A-Z_]+ label names should be written in 'snake_case' not 'camelCase'$" \
	    -e '^DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter metrics should have "_total" suffix$' <<<"$msg"; then
		echo "$msg" >&2
		return 1
	fi
	return 0
}

# A socket on 127.0.0.1 that accepts every connection and never answers (a hung provider or
# ssh), stopped at the end; its port in $port, a line "accepted" a connection in $TMP/hang.out.
start_hanging_socket() {
	local i
	python3 -c '
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
held = []
while True:
    held.append(s.accept())
    print("accepted", flush=True)
' >"$TMP/hang.out" &
	HANG_PID=$!
	CLEANUP_HOOKS+=("kill $HANG_PID 2>/dev/null; wait $HANG_PID 2>/dev/null")
	for ((i = 0; i < 100; i++)); do
		port=$(head -n 1 "$TMP/hang.out")
		[ -n "$port" ] && break
		sleep 0.1
	done
	[ -n "$port" ] || fail "the hanging socket did not start"
}
