# serve.sh - start `gpurent sim serve` for the t3xx provider tests: source after lib.sh.
#
#   start_serve DIALECT [OPTIONS...]   start a server on a free port; sets SERVE_URL and
#                                      SERVE_PID
#   use_provider NAME KEY              point GPURENT_<NAME>_URL/_API_KEY at it
SERVE_COUNT=0
start_serve() {
	local dialect=$1 i pid log
	shift
	# One log pair per server: two servers of one dialect must not share (and truncate) a file.
	SERVE_COUNT=$((SERVE_COUNT + 1))
	log="$TMP/serve-$dialect-$SERVE_COUNT"
	"$GPURENT" sim serve --dialect "$dialect" --port 0 "$@" >"$log.out" 2>"$log.err" &
	pid=$!
	SERVE_PID=$pid
	CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
	for ((i = 0; i < 100; i++)); do
		SERVE_URL=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$log.out")
		[ -n "$SERVE_URL" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log.err" >&2
	fail "sim serve --dialect $dialect did not start"
}

use_provider() {
	local up
	up=$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')
	export "GPURENT_${up}_URL=$SERVE_URL" "GPURENT_${up}_API_KEY=$2"
}
