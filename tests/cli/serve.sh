# serve.sh - start `gpurent sim serve` for the t3xx provider tests: source after lib.sh.
#
#   start_serve DIALECT [OPTIONS...]   start a server on a free port; sets SERVE_URL,
#                                      SERVE_PID and SERVE_HOME (its world's home)
#   use_provider NAME KEY              point GPURENT_<NAME>_URL/_API_KEY at it
#   serve_home DIALECT                 the home of that dialect's servers' world
#   serve_g DIALECT ARGS...            run gpurent in that home (`serve_g vast sim advance 5m`
#                                      moves the provider's clock)
#   stop_serve                         stop the last server started (the provider is gone)
#   runpod_over API                    a RunPod server, the only provider, over runpod.api API
#
# A server keeps its simulated world in a home apart from the client's: sharing one, the
# client's own sim provider would list every instance the server made a second time (and bill
# it in dollars). All servers of one dialect in a test share one world (a fault-free server
# beside a faulty one, a restart with other faults), as one provider's API would; servers of
# different dialects do not see each other's instances. A caller that sets GPURENT_HOME to
# another directory than the client's gets that one. A server's world is a provider's: it
# keeps its bills in its own home, never in a client's team state (GPURENT_STATE_URL).
SERVE_COUNT=0
serve_home() {
	printf '%s\n' "$TMP/serve-$1-home"
}

serve_g() {
	local home
	home=$(serve_home "$1")
	shift
	GPURENT_HOME=$home GPURENT_STATE_URL='' "$GPURENT" "$@"
}

start_serve() {
	local dialect=$1 i pid log home=$GPURENT_HOME
	shift
	[ "$home" = "$TMP/home" ] && home=$(serve_home "$dialect")
	mkdir -p "$home"
	# One log pair per server: two servers of one dialect must not share (and truncate) a file.
	SERVE_COUNT=$((SERVE_COUNT + 1))
	log="$TMP/serve-$dialect-$SERVE_COUNT"
	: >"$log.out"
	GPURENT_HOME=$home GPURENT_STATE_URL='' "$GPURENT" sim serve --dialect "$dialect" --port 0 "$@" \
	    >"$log.out" 2>"$log.err" &
	pid=$!
	SERVE_PID=$pid
	SERVE_HOME=$home
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

stop_serve() {
	kill "$SERVE_PID"
	wait "$SERVE_PID" 2>/dev/null
}

use_provider() {
	local up
	up=$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')
	export "GPURENT_${up}_URL=$SERVE_URL" "GPURENT_${up}_API_KEY=$2"
}

# runpod_over API: the simulator's RunPod dialect as the only provider, over its GraphQL or
# REST v2 API (runpod.api).
runpod_over() {
	start_serve runpod --api-key test-key-runpod
	use_provider runpod test-key-runpod
	g config set providers runpod >/dev/null || fail "config set providers"
	g config set runpod.api "$1" >/dev/null || fail "config set runpod.api"
}

# The simulator's PPIO dialect (prices in yuan) beside the sim provider (in dollars): the
# shape of every test of money in two currencies.
ppio_beside_sim() {
	start_serve ppio --api-key k
	use_provider ppio k
	g config set providers sim,ppio >/dev/null || fail "config set providers"
}

# A closed hour of ledger in yuan (ppio:abc, 12.60/h) and one in dollars (vast:1, 2.00/h),
# two hours ago to one, written as the ledger writes them.
ledger_yuan_and_dollar_hours() {
	local now
	now=$(date +%s)
	sqlite3 "$GPURENT_HOME/state.db" \
	    "INSERT INTO ledger(instance_id, provider, kind, rate_hour, start_ts, end_ts, currency)
	     VALUES('ppio:abc', 'ppio', 0, 12600000, $((now - 7200)), $((now - 3600)), 'CNY'),
	           ('vast:1', 'vast', 0, 2000000, $((now - 7200)), $((now - 3600)), 'USD')" ||
	    fail "sqlite3 insert"
}
