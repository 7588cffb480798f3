#!/bin/bash
# The instance guard on simulated RunPod pods behind a real sshd, with the ssh connection
# closed and no watcher: a busy pod keeps running past idle.after; --max-cost stops a pod
# through RunPod's podStop with the pod's own key once its spend reaches the cap, not
# before; a GPU that cannot be read stops nothing; a pod's key cannot stop another pod.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/serve.sh"

start_sshd
nvidia_double v100x16-decimal-comma.txt	# its busiest GPU at 90%: busy
start_serve runpod --api-key test-key-runpod
use_provider runpod test-key-runpod
g config set providers runpod >/dev/null
g config set guard.interval 1s >/dev/null
g config set idle.after 2s >/dev/null
GDIR="$HOME/.gpurent-guard"

pods=()
for l in busy cap blind; do
	launch_fresh gpus=1 -- --label "t731-$l" >"$TMP/id" || fail "launch $l"
	pods+=("$(cat "$TMP/id")")
done
busy=${pods[0]} cap=${pods[1]} blind=${pods[2]}
expect_ok serve_g runpod sim advance 10m
for p in "${pods[@]}"; do
	expect_ok g -o json show "$p"
	check "$p runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'
done
envf() { printf '%s/instance-env/%s\n' "$SERVE_HOME" "${1#runpod:}"; }
key_busy=$(tr '\0' '\n' <"$(envf "$busy")" | sed -n 's/^RUNPOD_API_KEY=//p')
check "the pod has its own key" '[ -n "$key_busy" ]'

# The busy pod's key cannot stop the capped pod.
body='{"query":"mutation Stop($podId: String!) { podStop(input: {podId: $podId}) { id } }","variables":{"podId":"'"${cap#runpod:}"'"}}'
code=$(curl -s -o "$TMP/resp" -w '%{http_code}' -H "Authorization: Bearer $key_busy" \
	-H 'Content-Type: application/json' --data "$body" "$SERVE_URL/graphql")
check "refused on another pod (403)" '[ "$code" = 403 ]'
expect_ok g -o json show "$cap"
check "the capped pod still runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'

state() { sed -n "s/^$2=//p" "$GDIR/runpod-${1#runpod:}/state" 2>/dev/null; }
agent_pid() { cat "$GDIR/runpod-${1#runpod:}/pid"; }

# Busy: past idle.after, the pod runs on.
GPURENT_GUARD_ENVIRON=$(envf "$busy") expect_ok g guard install "$busy"
CLEANUP_HOOKS+=("kill $(agent_pid "$busy") 2>/dev/null")
# The cap: 9 seconds of the pod's price past what it had cost at the dry run.
expect_ok g guard install --dry-run "$cap"
price=$(sed -n 's/^GR_PRICE=//p' <<<"$OUT")
spent0=$(sed -n 's/^GR_SPENT0=//p' <<<"$OUT")
check "the price is known" '[ "$price" -gt 0 ]'
capm=$((spent0 + (price * 9 + 3599) / 3600))
cap_text=$(printf '%d.%06d' $((capm / 1000000)) $((capm % 1000000)))
g config set label.t731-cap.idle.after 1h >/dev/null
# First a guard with no cap, 3 s before the one with it: the cap counts from its own install.
GPURENT_GUARD_ENVIRON=$(envf "$cap") expect_ok g guard install "$cap"
CLEANUP_HOOKS+=("kill $(agent_pid "$cap") 2>/dev/null")
wait_until 100 '[ -s "$GDIR/runpod-${cap#runpod:}/installed_at" ]' || fail "no first agent"
first_at=$(cat "$GDIR/runpod-${cap#runpod:}/installed_at")
wait_until 100 '[ "$(date +%s)" -ge $((first_at + 3)) ]'
t2=$(date +%s)
GPURENT_GUARD_ENVIRON=$(envf "$cap") expect_ok g guard install --max-cost "$cap_text" "$cap"
check "install says the cap" 'grep -q "cost of" <<<"$ERR"'
CLEANUP_HOOKS+=("kill $(agent_pid "$cap") 2>/dev/null")
close_masters
wait_until 100 '[ -z "$(ssh_masters)" ]' || fail "ssh masters still up"

wait_until 300 '[ "$(state "$cap" verdict)" = stopped ]' ||
	fail "the capped pod was not stopped: $(cat "$GDIR/runpod-${cap#runpod:}/log")"
installed=$(cat "$GDIR/runpod-${cap#runpod:}/installed_at")
# What it had cost at the install itself (a little more than at the dry run), and so the
# first second at which its spend, counted by whole seconds, reaches the cap.
spent1=$(sed -n 's/^GR_SPENT0=//p' "$GDIR/runpod-${cap#runpod:}/agent.sh")
due=$(( ((capm - spent1) * 3600 + price - 1) / price ))
check "the cap is seconds away at install" '[ "$due" -ge 2 ]'
check "stopped at the cap" '[ "$(state "$cap" spent)" -ge "$capm" ]'
check "not before the spend reached it" '[ $(( $(state "$cap" at) - installed )) -ge "$due" ]'
check "counted from the install with the cap" '[ "$installed" -ge "$t2" ] && [ $(( $(state "$cap" at) - t2 )) -ge "$due" ]'
check "the stop names the cap" 'grep -q "stop-ordered max-cost spent" "$GDIR/runpod-${cap#runpod:}/log"'
expect_ok serve_g runpod sim advance 5m
expect_ok g -o json show "$cap"
check "the capped pod stopped through RunPod" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'

# The busy pod: sampled past its idle.after (2s) and still busy, still running.
busy_from=$(cat "$GDIR/runpod-${busy#runpod:}/installed_at")
wait_until 300 '[ $(( $(state "$busy" at) - busy_from )) -ge 3 ]' || fail "the busy agent stopped sampling"
check "busy verdict: $(state "$busy" verdict), log: $(tail -3 "$GDIR/runpod-${busy#runpod:}/log")" \
	'[ "$(state "$busy" verdict)" = busy ]'
expect_ok g -o json show "$busy"
check "the busy pod runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g guard status "$busy" -o json
check "status: busy, its busiest GPU" '[ "$(jq -r ".[0].verdict, .[0].util_pct" <<<"$OUT" | tr "\n" " ")" = "busy 90 " ]'

# No GPU reading (the driver gone): no idle verdict, nothing stopped, said in its log.
nvidia_double driver-gone.txt
GPURENT_GUARD_ENVIRON=$(envf "$blind") expect_ok g guard install "$blind"
CLEANUP_HOOKS+=("kill $(agent_pid "$blind") 2>/dev/null")
wait_until 300 '[ "$(nvidia_queries)" -ge 5 ]' || fail "no samples"
check "unknown verdict" '[ "$(state "$blind" verdict)" = unknown ]'
check "said once in its log" '[ "$(grep -c " unknown - no GPU reading" "$GDIR/runpod-${blind#runpod:}/log")" = 1 ]'
check "no stop ordered" '! grep -q stop "$GDIR/runpod-${blind#runpod:}/log"'
expect_ok g -o json show "$blind"
check "the unreadable pod runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g guard status "$blind" -o json
check "status: unknown, no util" '[ "$(jq -r ".[0].verdict, .[0].util_pct" <<<"$OUT" | tr "\n" " ")" = "unknown null " ]'
expect_ok g -o json events
check "the unknown reading is an event" '[ "$(jq "[.[] | select(.kind == \"guard-unknown\" and .instance_id == \"$blind\")] | length" <<<"$OUT")" = 1 ]'

# Without ids: every running pod, the stopped one left out.
expect_ok g guard status -o json
check "status of the running pods" '[ "$(jq -r "[.[].id] | sort | join(\" \")" <<<"$OUT")" = "$(printf "%s\n" "$busy" "$blind" | sort | tr "\n" " " | sed "s/ $//")" ]'
# A provider that cannot list is named; the others' instances are read, status partial.
GPURENT_VAST_URL=http://127.0.0.1:1 GPURENT_VAST_API_KEY=k expect_rc 10 g -p runpod -p vast guard status -o json
check "the running pods of the provider that answered" '[ "$(jq length <<<"$OUT")" = 2 ]'
check "the one that did not is named" 'grep -q "vast" <<<"$ERR"'
expect_ok g guard status --label t731-busy -o json
check "status by label" '[ "$(jq -r "[.[].id] | join(\" \")" <<<"$OUT")" = "$busy" ]'
expect_rc 3 g guard status --label nobody
expect_ok g guard remove "$busy" "$blind"
pass
