#!/bin/bash
# The instance guard on a simulated vast.ai instance behind a real sshd: the agent, with the
# ssh connection closed and no watcher, stops an idle instance through vast's API with the
# instance's own key after idle.after and not before; that key cannot stop another instance;
# a second install leaves one agent; kill -9 shows in guard status; decisions become events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/serve.sh"

start_sshd
nvidia_double h100x8.txt	# every GPU at 3% or less: idle at the default idle.threshold 5
# crontab on the instance: a stand-in that keeps the table in a file.
cat >"$TMP/remote-bin/crontab" <<'EOF'
#!/bin/sh
f=$(dirname "$0")/crontab.txt
case $1 in -l) cat "$f" 2>/dev/null ;; -) cat >"$f" ;; *) exit 2 ;; esac
EOF
chmod +x "$TMP/remote-bin/crontab"
start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
g config set providers vast >/dev/null
g config set guard.interval 1s >/dev/null
GDIR="$HOME/.gpurent-guard"

# How many agents run for directory $1: its processes whose parent is none of them (the
# agent's own subshells carry its command line too).
agents() {
	ps -eo pid=,ppid=,args= | awk -v d="$1/agent.sh" '$3 == "sh" && index($4, d) { p[$1] = $2 }
		END { for (k in p) if (!(p[k] in p)) n++; print n + 0 }'
}

launch_one() {
	launch_fresh gpus=1 -- --label "$1" || fail "launch $1"
}
run launch_one t730a
a=$OUT
run launch_one t730b
b=$OUT
expect_ok serve_g vast sim advance 10m
expect_ok g -o json show "$a"
check "a runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'
an=${a#vast:}
bn=${b#vast:}
env_a="$SERVE_HOME/instance-env/$an"
check "the simulated container of a has its own id and key" \
	'tr "\0" "\n" <"$env_a" | grep -qx "CONTAINER_ID=$an" && tr "\0" "\n" <"$env_a" | grep -q "^CONTAINER_API_KEY=."'
key_a=$(tr '\0' '\n' <"$env_a" | sed -n 's/^CONTAINER_API_KEY=//p')

# The instance key cannot stop another instance, nor list the account.
code=$(curl -s -o "$TMP/resp" -w '%{http_code}' -X PUT -H "Authorization: Bearer $key_a" \
	-H 'Content-Type: application/json' --data '{"state":"stopped"}' "$SERVE_URL/api/v0/instances/$bn/")
check "a's key refused on b (403)" '[ "$code" = 403 ]'
code=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H "Authorization: Bearer $key_a" "$SERVE_URL/api/v1/instances/")
check "a's key refused on the account (403)" '[ "$code" = 403 ]'
expect_ok g -o json show "$b"
check "b still runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'

# A dry run prints the agent with its settings; nothing is installed.
g config set label.t730a.idle.after 4s >/dev/null
expect_ok g guard install --dry-run "$a"
check "dry run: the idle policy" 'grep -qx "GR_IDLE_AFTER=4" <<<"$OUT"'
check "dry run: the instance" 'grep -qx "GR_TARGET=$an" <<<"$OUT"'
check "dry run: the probe's query" 'grep -q "query-gpu" <<<"$OUT"'
check "dry run installs nothing" '[ ! -e "$GDIR/vast-$an" ]'
# An idle policy that only notifies is not the agent's to hold.
g config set label.t730a.idle.action notify >/dev/null
expect_ok g guard install --dry-run "$a"
check "dry run: no idle policy where it only notifies" 'grep -qx "GR_IDLE_AFTER=0" <<<"$OUT"'
g config unset label.t730a.idle.action >/dev/null

# Installed twice: one agent, one crontab line.
export GPURENT_GUARD_ENVIRON="$env_a"
expect_ok g guard install "$a"
check "install prints the id" '[ "$OUT" = "$a" ]'
check "install says the policy" 'grep -q "idle 4s" <<<"$ERR"'
first=$(cat "$GDIR/vast-$an/pid")
CLEANUP_HOOKS+=("kill \$(cat '$GDIR/vast-$an/pid' 2>/dev/null) $first 2>/dev/null")
expect_ok g guard install "$a"
second=$(cat "$GDIR/vast-$an/pid")
check "the first agent was replaced" '! kill -0 "$first" 2>/dev/null'
check "the second runs" 'kill -0 "$second"'
check "one agent" '[ "$(agents "vast-$an")" = 1 ]'
check "one @reboot line" '[ "$(grep -c "gpurent-guard vast-$an" "$TMP/remote-bin/crontab.txt")" = 1 ]'

# No ssh master, no watcher: the agent alone.
close_masters
wait_until 100 '[ -z "$(ssh_masters)" ]' || fail "ssh masters still up"
state() { sed -n "s/^$1=//p" "$GDIR/vast-$an/state" 2>/dev/null; }
wait_until 150 '[ "$(state pid)" = "$second" ] && [ "$(state verdict)" = idle ]' ||
	fail "no idle verdict: $(cat "$GDIR/vast-$an/state")"
since=$(state idle_since)
# Not before idle.after: while the journal says it acts in a second or more, a runs.
wait_until 150 '[ "$(state next)" = idle ] && [ "$(state next_in)" -ge 1 ]' || fail "no countdown"
expect_ok g -o json show "$a"
check "a runs before idle.after" '[ "$(jq -r .state <<<"$OUT")" = running ]'
wait_until 300 '[ "$(state verdict)" = stopped ]' || fail "not stopped: $(cat "$GDIR/vast-$an/log")"
check "stopped idle.after after the idle verdict began" '[ $(( $(state at) - since )) -ge 4 ]'
expect_ok serve_g vast sim advance 5m
expect_ok g -o json show "$a"
check "a stopped through vast's API" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g -o json show "$b"
check "b untouched" '[ "$(jq -r .state <<<"$OUT")" = running ]'
check "the agent ended" 'wait_until 50 "! kill -0 $second 2>/dev/null"'

# A stopped instance has no ssh: its journal, kept on its disk, is read once it runs again.
expect_rc 1 g guard status "$a"
check "status says why it cannot read" 'grep -q "not running" <<<"$ERR"'
expect_ok g start "$a"
expect_ok serve_g vast sim advance 5m
# guard status reads the journal and records the decisions as events, once.
expect_ok g guard status "$a" -o json
check "status: stopped" '[ "$(jq -r ".[0].verdict" <<<"$OUT")" = stopped ]'
check "status: the agent is gone" '[ "$(jq -r ".[0].agent" <<<"$OUT")" = gone ]'
expect_ok g -o json events
check "the stop is an event" '[ "$(jq "[.[] | select(.kind == \"guard-stop-ordered\" and .instance_id == \"$a\" and .policy == \"idle\")] | length" <<<"$OUT")" = 1 ]'
expect_ok g guard status "$a" -o json
expect_ok g -o json events
check "recorded once" '[ "$(jq "[.[] | select(.kind == \"guard-stop-ordered\")] | length" <<<"$OUT")" = 1 ]'

# kill -9 of a live agent: its heartbeat ages and status says so.
g config set label.t730b.idle.after 1h >/dev/null
GPURENT_GUARD_ENVIRON="$SERVE_HOME/instance-env/$bn" expect_ok g guard install "$b"
pb=$(cat "$GDIR/vast-$bn/pid")
CLEANUP_HOOKS+=("kill $pb 2>/dev/null")
expect_ok g guard status "$b" -o json
check "b's agent runs" '[ "$(jq -r ".[0].agent" <<<"$OUT")" = running ]'
kill -9 "$pb"
wait_until 100 '! kill -0 "$pb" 2>/dev/null'
hb=$(sed -n 's/^heartbeat=//p' "$GDIR/vast-$bn/state")
wait_until 100 '[ $(( $(date +%s) - hb )) -ge 2 ]'
expect_ok g guard status "$b" -o json
check "status: gone" '[ "$(jq -r ".[0].agent" <<<"$OUT")" = gone ]'
check "status: the heartbeat's age" '[ "$(jq -r ".[0].heartbeat_age_s" <<<"$OUT")" -ge 2 ]'

# The figures of status, from a journal written by hand (the agent is dead): a heartbeat
# 100 s old, 0.123456 dollars spent, the idle policy acting in 42 s, the busiest GPU at 7%.
now=$(date +%s)
printf '%s\n' "at=$((now - 100))" "heartbeat=$((now - 100))" interval=1 util=7 verdict=idle \
	"idle_since=$((now - 100))" next=idle next_in=42 spent=123456 currency=USD \
	>"$GDIR/vast-$bn/state"
expect_ok g guard status "$b" -o json
check "hand-made journal: heartbeat 100 s old" '[ "$(jq ".[0].heartbeat_age_s" <<<"$OUT")" -ge 100 ] && [ "$(jq ".[0].heartbeat_age_s" <<<"$OUT")" -le 105 ]'
check "hand-made journal: 0.123456 dollars spent" '[ "$(jq -r ".[0] | \"\(.spent) \(.currency)\"" <<<"$OUT")" = "0.123456 USD" ]'
check "hand-made journal: idle in 42 s at 7%" '[ "$(jq -r ".[0] | \"\(.next) \(.next_in_s) \(.util_pct) \(.verdict)\"" <<<"$OUT")" = "idle 42 7 idle" ]'
expect_ok g guard status "$b"
check "table: the spend in dollars" 'grep -q "\$0.1235" <<<"$OUT"'
# A stop that fails (no credential where the agent looks) is tried again after 2, 4, 8
# rounds, not every round.
g config set label.t730b.idle.after 1s >/dev/null
GPURENT_GUARD_ENVIRON="$TMP/no-such-environ" expect_ok g guard install "$b"
CLEANUP_HOOKS+=("kill $(cat "$GDIR/vast-$bn/pid") 2>/dev/null")
log_b="$GDIR/vast-$bn/log"
# The retries come 2 and 6 s after the first failure's round (its log time may be a second
# later), so its log time and the 3 s after hold two failures at most (one a round: four).
wait_until 150 'grep -q stop-failed "$log_b"' || fail "no failed stop: $(cat "$log_b")"
t0=$(grep -m1 stop-failed "$log_b" | cut -d " " -f 2)
check "it says why" 'grep -q "no instance credential" "$log_b"'
wait_until 150 '[ "$(sed -n "s/^at=//p" "$GDIR/vast-$bn/state")" -ge $((t0 + 4)) ]' || fail "no rounds"
check "tried again at +2 s, not each second" \
	'[ "$(awk -v t="$t0" '"'"'$3 == "stop-failed" && $2 <= t + 3'"'"' "$log_b" | wc -l)" -le 2 ]'
expect_ok g -o json show "$b"
check "b runs on" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g guard remove "$b"
check "removed" '[ ! -e "$GDIR/vast-$bn" ] && ! grep -q "vast-$bn" "$TMP/remote-bin/crontab.txt"'
expect_rc 3 g guard remove "$b"
# Installed anew after a remove: its new log's decisions are recorded too.
g config set label.t730b.idle.after 1h >/dev/null
GPURENT_GUARD_ENVIRON="$SERVE_HOME/instance-env/$bn" expect_ok g guard install "$b"
CLEANUP_HOOKS+=("kill $(cat "$GDIR/vast-$bn/pid") 2>/dev/null")
starts() { g -o json events | jq "[.[] | select(.kind == \"guard-start\" and .instance_id == \"$b\")] | length"; }
n0=$(starts)
expect_ok g guard status "$b"
check "the new agent's start is an event" '[ "$(starts)" = $((n0 + 1)) ]'
expect_ok g guard remove "$b"
pass
