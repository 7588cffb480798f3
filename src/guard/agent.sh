# The instance guard's agent (src/guard/agent.c puts its settings and the probe above this).
# POSIX sh and the probes' own tools: it samples the GPUs every GR_INTERVAL seconds, keeps a
# journal in GR_DIR, and stops the instance through its provider with the credential the
# provider gave the instance itself (PPIO, Lambda: the account's key that install --with-key
# put in GR_DIR/key), with no connection to the user's machine.
#
# The journal: GR_DIR/state (key=value lines, rewritten whole each round: at, heartbeat,
# sample, util, verdict, idle_since, next, next_in, interval, spent, currency, pid) and GR_DIR/log,
# one line per decision: "SEQ TIME KIND POLICY MESSAGE" (KIND: start, unknown, known,
# stop-ordered, stop-failed, refused).
umask 077
LC_ALL=C
export LC_ALL
mkdir -p "$GR_DIR" || exit 1
cd "$GR_DIR" || exit 1

# One agent per instance: a live one recorded in the pid file runs on alone.
if [ -f pid ]; then
	old=$(cat pid 2>/dev/null)
	case $old in
	'' | *[!0-9]*) ;;
	*)
		if [ "$old" != $$ ] && kill -0 "$old" 2>/dev/null &&
			grep -q agent.sh "/proc/$old/cmdline" 2>/dev/null; then
			exit 0
		fi
		;;
	esac
fi
echo $$ >pid

# Decisions are numbered on from the log's last; a new log from its first second x 1000, so
# that a log begun again (the guard removed and installed anew) numbers past the old one,
# and gpurent, which remembers the last number it recorded, misses none.
seq=$(tail -n 1 log 2>/dev/null | cut -d ' ' -f 1)
case $seq in '' | *[!0-9]*) seq=$(($(date +%s) * 1000)) ;; esac

gr_log() {
	seq=$((seq + 1))
	printf '%s %s %s %s %s\n' "$seq" "$(date +%s)" "$1" "$2" "$3" >>log
}

# A variable of the instance's own environment: the agent's, else its container's first
# process's (ssh sessions do not inherit what the provider gave the container).
gr_env() {
	eval "gr_v=\${$1:-}"
	if [ -z "$gr_v" ] && [ -r "$GR_ENVIRON" ]; then
		gr_v=$(tr '\0' '\n' <"$GR_ENVIRON" | sed -n "s/^$1=//p" | head -n 1)
	fi
	printf '%s' "$gr_v"
}

# The busiest GPU's utilisation from the probe's output, or nothing when any GPU's is not
# a plain percentage (an error message, N/A, no GPU at all): no reading, no idle verdict.
gr_util() {
	awk -F', ' '
	/^# fields=/ {
		n = split(substr($0, 10), f, ",")
		for (i = 1; i <= n; i++) if (f[i] == "utilization.gpu") col = i
		next
	}
	/^#/ || /^[ \r]*$/ { next }
	{
		v = col ? $col : ""
		gsub(/[ %\r]/, "", v)
		if (v !~ /^[0-9]+$/ || v + 0 > 100) { bad = 1; next }
		rows++
		if (v + 0 > max) max = v + 0
	}
	END { if (rows > 0 && !bad) print max }'
}

# The same of AMD's JSON (GR_PROBE_AMD): rocm-smi's "GPU use (%)" of each card, or amd-smi's
# usage.gfx_activity of each GPU ({"value": N, ...} over lines, or a bare N); "N/A" anywhere
# is an unknown reading.
gr_util_amd() {
	awk '
	function take(v) {
		sub(/^[ \t]*/, "", v)
		if (v !~ /^[0-9]+(\.[0-9]+)?([^0-9.]|$)/) { bad = 1; return }
		v = v + 0
		if (v > 100) { bad = 1; return }
		rows++
		if (v > max) max = v
	}
	/"GPU use \(%\)"/ {
		v = $0
		sub(/.*"GPU use \(%\)"[ \t]*:[ \t]*"?/, "", v)
		take(v)
		next
	}
	/"gfx_activity"/ {
		v = $0
		sub(/.*"gfx_activity"[ \t]*:[ \t]*/, "", v)
		if (v ~ /^\{/) { gfx = 1; v = substr(v, 2) } else { take(v); next }
		if (v !~ /"value"/) next
		$0 = v
	}
	gfx && /"value"/ {
		# The first "value" after it: more may follow on the line (umc_activity).
		match($0, /"value"[ \t]*:[ \t]*/)
		take(substr($0, RSTART + RLENGTH))
		gfx = 0
		next
	}
	gfx && /\}/ { bad = 1; gfx = 0 }
	END { if (rows > 0 && !bad) printf "%d\n", max }'
}

# The busiest GPU's utilisation now: NVIDIA's tool where it is, else AMD's (rocm-smi, or
# amd-smi where rocm-smi fails), as the probes ask them; nothing when none answers.
gr_sample() {
	if command -v nvidia-smi >/dev/null 2>&1 ||
	    ! { command -v rocm-smi || command -v amd-smi; } >/dev/null 2>&1; then
		gr_probe "$GR_PROBE" | gr_util
	else
		gr_probe "$GR_PROBE_AMD" | gr_util_amd
	fi
}

# One probe command, bounded in time where timeout(1) is there.
gr_probe() {
	if command -v timeout >/dev/null 2>&1; then
		timeout $((GR_INTERVAL * 3 + 30)) sh -c "$1" 2>&1 </dev/null
	else
		sh -c "$1" 2>&1 </dev/null
	fi
}

# One HTTP request: METHOD URL BODY, the key in the Authorization header (read by curl from
# its standard input, so that it never shows in the process list); prints the status.
gr_http() {
	if command -v curl >/dev/null 2>&1; then
		printf 'header = "Authorization: Bearer %s"\n' "$gr_key" |
			curl -sS -K - -o resp -w '%{http_code}' -X "$1" \
				-H 'Content-Type: application/json' --data "$3" --max-time 60 "$2" 2>>out
	elif command -v wget >/dev/null 2>&1; then
		if wget -q -O resp --method="$1" --header="Authorization: Bearer $gr_key" \
			--header='Content-Type: application/json' --body-data="$3" -T 60 "$2" 2>>out; then
			echo 200
		else
			echo 0
		fi
	else
		echo none
	fi
}

# Stop the instance, saying why ($1 policy, $2 what was seen): 0 when the provider took it.
gr_stop() {
	if [ "$GR_PROVIDER" = slurm ]; then
		# The job's own node, as the job's user: Slurm needs no other credential.
		scancel "$GR_TARGET" 2>>out
		gr_code=$?
		if [ "$gr_code" = 0 ]; then
			gr_log stop-ordered "$1" "$2; cancelled with scancel"
			return 0
		fi
		gr_log stop-failed "$1" "$2; scancel exited $gr_code"
		return 1
	fi
	gr_where="the environment or $GR_ENVIRON"
	case $GR_PROVIDER in
	vast)
		gr_key=$(gr_env CONTAINER_API_KEY)
		gr_self=$(gr_env CONTAINER_ID)
		;;
	runpod)
		gr_key=$(gr_env RUNPOD_API_KEY)
		gr_self=$(gr_env RUNPOD_POD_ID)
		;;
	*)
		# The account's key acts on any of its instances: the target is the one installed for.
		gr_key=$(cat key 2>/dev/null)
		gr_self=$GR_TARGET
		gr_where="$GR_DIR/key"
		;;
	esac
	if [ -z "$gr_key" ] || [ -z "$gr_self" ]; then
		gr_log stop-failed "$1" "no instance credential in $gr_where"
		return 1
	fi
	if [ "$gr_self" != "$GR_TARGET" ]; then
		gr_log stop-failed "$1" "this machine is $gr_self, the guard was installed for $GR_TARGET"
		return 1
	fi
	case $GR_PROVIDER in
	vast)
		gr_code=$(gr_http PUT "$GR_API/api/v0/instances/$GR_TARGET/" '{"state":"stopped"}')
		;;
	runpod)
		# shellcheck disable=SC2016 # $podId is GraphQL's, not the shell's
		gr_code=$(gr_http POST "$GR_API/graphql" \
			'{"query":"mutation Stop($podId: String!) { podStop(input: {podId: $podId}) { id desiredStatus } }","variables":{"podId":"'"$GR_TARGET"'"}}')
		;;
	ppio)
		gr_code=$(gr_http PUT "$GR_API/gpus/v2/instances/$GR_TARGET/stop" '')
		;;
	lambda)
		# Lambda has no stop: the instance is terminated, its disk with it.
		gr_code=$(gr_http POST "$GR_API/api/v1/instance-operations/terminate" \
			'{"instance_ids":["'"$GR_TARGET"'"]}')
		;;
	esac
	if [ "$gr_code" = 200 ] && ! grep -q '"errors"' resp 2>/dev/null; then
		gr_log stop-ordered "$1" "$2; stopped through the provider"
		return 0
	fi
	gr_log stop-failed "$1" "$2; the provider answered $gr_code"
	return 1
}

# Keep policy $1 as what acts next when its $2 seconds are the fewest yet.
gr_next() {
	if [ -z "$next_in" ] || [ "$2" -lt "$next_in" ]; then
		next=$1
		next_in=$2
	fi
}

[ -f installed_at ] || date +%s >installed_at
installed_at=$(cat installed_at)
gr_log start - "interval ${GR_INTERVAL}s"
idle_since=
known=
verdict=starting
fails=0
retry_at=0
while :; do
	now=$(date +%s)
	util=$(gr_sample)
	if [ -z "$util" ]; then
		verdict=unknown
		idle_since=
		[ "$known" = no ] || gr_log unknown - "no GPU reading: no idle verdict"
		known=no
	else
		[ "$known" = no ] && gr_log known - "GPU readings again"
		known=yes
		if [ "$util" -le "$GR_IDLE_THRESHOLD" ]; then
			verdict=idle
			[ -n "$idle_since" ] || idle_since=$now
		else
			verdict=busy
			idle_since=
		fi
	fi
	spent=$((GR_SPENT0 + GR_PRICE * (now - installed_at) / 3600))
	# What acts next and in how many seconds: the nearest of the policies that hold.
	next=
	next_in=
	[ "$GR_UNTIL" -gt 0 ] && gr_next deadline $((GR_UNTIL - now))
	[ "$GR_RUNTIME_MAX" -gt 0 ] && [ "$GR_STARTED" -gt 0 ] &&
		gr_next runtime $((GR_STARTED + GR_RUNTIME_MAX - now))
	if [ "$GR_MAX_COST" -gt 0 ] && [ "$GR_PRICE" -gt 0 ]; then
		# Seconds until the spend reaches the cap (rounded up: never before it).
		if [ "$spent" -ge "$GR_MAX_COST" ]; then
			gr_next max-cost 0
		else
			gr_next max-cost $(((GR_MAX_COST - spent) * 3600 / GR_PRICE + 1))
		fi
	fi
	[ "$GR_IDLE_AFTER" -gt 0 ] && [ -n "$idle_since" ] &&
		gr_next idle $((idle_since + GR_IDLE_AFTER - now))
	[ -n "$next_in" ] && [ "$next_in" -lt 0 ] && next_in=0
	# A stop that failed is tried again after 2, 4, 8 ... rounds (at most 5 minutes apart),
	# so that a provider that refuses does not fill the log and the events.
	if [ "$next_in" = 0 ] && [ "$now" -ge "$retry_at" ]; then
		case $next in
		idle) why="GPU at most ${GR_IDLE_THRESHOLD}% for ${GR_IDLE_AFTER}s (now ${util}%)" ;;
		max-cost) why="spent $spent of $GR_MAX_COST micro-$GR_CURRENCY" ;;
		*) why="$next reached" ;;
		esac
		if gr_stop "$next" "$why"; then
			verdict=stopped
		else
			verdict=stop-failed
			fails=$((fails + 1))
			back=$((GR_INTERVAL * (1 << (fails < 9 ? fails : 9))))
			[ "$back" -gt 300 ] && back=300
			retry_at=$((now + back))
		fi
	fi
	{
		echo "at=$now"
		echo "heartbeat=$(date +%s)"
		echo "interval=$GR_INTERVAL"
		echo "util=$util"
		echo "verdict=$verdict"
		echo "idle_since=$idle_since"
		echo "next=$next"
		echo "next_in=$next_in"
		echo "spent=$spent"
		echo "currency=$GR_CURRENCY"
		echo "pid=$$"
	} >state.new && mv state.new state
	[ "$verdict" = stopped ] && exit 0
	sleep "$GR_INTERVAL"
done
