#!/usr/bin/env bash
# Host keys on vast.ai (issue 26), which says only for how many minutes a container has run
# (uptime_mins): gpurent works out the run's start from it, to the minute. A changed key on a
# container that kept running is refused; so is one after a restart less than three minutes
# (the margin for that rounding) after the start recorded with the key; once the container
# was stopped and started again later than that, the new key is pinned with a warning.
#
# The provider's clock runs ahead of this one by what `sim advance` adds: a start worked out
# here is the provider's start less all the advances since, so a run started before a long
# advance reads as much earlier than one started before a short one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/serve.sh"
start_sshd
start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
g config set providers vast >/dev/null || fail "config set providers"
id=$(launch_fresh gpus=1 --) || fail "launch"
expect_ok serve_g vast sim advance 10m

# The run's start as gpurent reads it from the provider now (UTC seconds).
started() {
	g -o json show "$id" | jq -r '.state_since | fromdateiso8601'
}

# Stop and start the container through the provider, and wait for it to run again.
restart() {
	expect_ok g stop --no-wait "$id"
	expect_ok serve_g vast sim advance 1m
	expect_ok g start "$id"
	expect_ok serve_g vast sim advance 2m
	expect_ok g -o json show "$id"
	check "it runs again" '[ "$(jq -r .state <<<"$OUT")" = running ]'
}

expect_ok g ssh "$id" -- echo first
check "the first contact connects" '[ "$OUT" = first ]'
pin="$GPURENT_HOME/hostkeys/$id"
recorded=$(cat "$pin.start" 2>/dev/null)
now=$(started)
check "the start of the run is recorded with the pin, to the minute ($recorded, $now)" \
	'[ -s "$pin" ] && [ $((recorded % 60)) = 0 ] && [ $((now - recorded)) -ge 0 ] &&
	 [ $((now - recorded)) -le 60 ]'

# Another machine answers at the address of the running container.
restart_sshd_new_key
expect_rc 255 g ssh "$id" -- echo second
check "a changed key on a running container is refused" \
	'[ -z "$OUT" ] && [[ $ERR == *"reports no restart"* && $ERR == *"refusing to connect"* ]]'

# A restart whose start reads a minute after the recorded one: within the margin.
restart
now=$(started)
check "the restart reads well after the recorded start ($now, $recorded)" \
	'[ $((now - recorded)) -gt 120 ]'
expect_ok serve_g vast sim advance "$((now - recorded - 60))s"
now=$(started)
check "and after the provider's clock moved, a minute after it ($now, $recorded)" \
	'[ $((now - recorded)) -gt 0 ] && [ $((now - recorded)) -le 120 ]'
expect_rc 255 g ssh "$id" -- true
check "a start within three minutes of the recorded one is no restart: refused" \
	'[[ $ERR == *"reports no restart"* ]] && [ ! -e "$pin.old" ]'

# A restart later than the margin: the new key is the machine's own now.
restart
expect_ok g ssh "$id" -- echo third
check "after a stop and start the new key is pinned and ssh connects" '[ "$OUT" = third ]'
check "with a warning that says why" \
	'[[ $ERR == *"warning: the host key of $id has changed"* && $ERR == *"was restarted"* ]]'
check "the old key is kept aside" '[ -s "$pin.old" ]'
check "the new start is recorded" '[ "$(cat "$pin.start")" -gt $((recorded + 180)) ]'
expect_ok g ssh "$id" -- echo fourth
check "and the next connection says nothing more" '[ "$OUT" = fourth ] && [ -z "$ERR" ]'
pass
