#!/bin/bash
# launch --wait --guard: once the new vast instance runs, the instance guard goes on it, as
# guard install puts it; --guard without --wait is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/serve.sh"

start_sshd
nvidia_double old-driver-440.txt	# busy: the agent stops nothing
start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
g config set providers vast >/dev/null
g config set guard.interval 1s >/dev/null
g config set idle.after 1h >/dev/null
offer=$(g offers gpus=1 -o ids -n 1)
expect_rc 2 g launch "$offer" --guard
check "--guard needs --wait" 'grep -q "needs --wait" <<<"$ERR"'

# The serve world's first instance is vast:1: its container's environment is known ahead.
export GPURENT_GUARD_ENVIRON="$SERVE_HOME/instance-env/1"
dir="$HOME/.gpurent-guard/vast-1"
CLEANUP_HOOKS+=("kill \$(cat '$dir/pid' 2>/dev/null) 2>/dev/null")
# The provider's clock moves once the launch is waiting for the instance.
(
	wait_until 300 '[ -e "$SERVE_HOME/instance-env/1" ]' &&
		serve_g vast sim advance 10m >/dev/null
) &
advance=$!
CLEANUP_HOOKS+=("kill $advance 2>/dev/null")
expect_ok g launch "$offer" --wait --guard --timeout 60
wait $advance
check "the id on stdout alone" '[ "$OUT" = vast:1 ]'
check "says the guard is on" 'grep -q "vast:1: guard installed" <<<"$ERR"'
check "its agent runs" '[ -s "$dir/pid" ] && kill -0 "$(cat "$dir/pid")"'
wait_until 100 '[ "$(sed -n "s/^verdict=//p" "$dir/state" 2>/dev/null)" = busy ]' || fail "no sample"
expect_ok g guard status vast:1 -o json
check "status: running" '[ "$(jq -r ".[0].agent" <<<"$OUT")" = running ]'
expect_ok g guard remove vast:1

# A provider that gives its instances no key of their own: refused, saying what still holds.
sim_offer=$(g -p sim offers gpus=1 -o ids -n 1)
expect_ok g launch "$sim_offer"
sim_id=$OUT
expect_rc 12 g guard install "$sim_id"
check "refused: no credential of its own" 'grep -q "no credential of their own" <<<"$ERR"'
check "says what still holds" 'grep -q "What still holds: gpurent watch" <<<"$ERR"'
pass
