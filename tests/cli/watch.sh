# watch.sh - helpers for the watcher tests (t070-t079): source after lib.sh.
#
# The simulated clock is fixed (GPURENT_SIM_TIME) and moved only by `sim advance`, so each
# test says exactly how much time passes between two passes of `gpurent watch --once`.
#   ids_of N [FILTER...]       the first N on-demand offers of one GPU
#   state_of ID                the instance's state, as `ls` has it
#   events_json                every event, as a JSON array, in $EV
#   count_events KIND [ID]     how many events of KIND (of instance ID)
#   two_idle                   two idle instances ($a, $b) launched and running, idle.after 2m
#   at_first_stop SIGNAL       notify.command sends SIGNAL to its watcher at the first stop
#                              order of all: $TMP/signalled/at (ns) and /pid say when, whom
export GPURENT_SIM_TIME=1767261600	# 2026-01-01T10:00:00Z

ids_of() {
	local n=$1
	shift
	g -o ids offers gpus=1 type=on-demand "$@" | head -n "$n"
}

state_of() {
	g -o json show "$1" | jq -r .state
}

events_json() {
	EV=$(g -o json events) || fail "events failed"
}

count_events() {
	events_json
	jq --arg k "$1" --arg i "${2:-}" \
		'[.[] | select(.kind == $k and ($i == "" or .instance_id == $i))] | length' <<<"$EV"
}

two_idle() {
	expect_ok g config set idle.after 2m
	a=$(launch_fresh gpus=1 type=on-demand -- --env SIM_WORKLOAD=idle --label a) || fail "launch a"
	b=$(launch_fresh gpus=1 type=on-demand -- --env SIM_WORKLOAD=idle --label b) || fail "launch b"
	# Both running before the first pass, so that both are idle from the same sample.
	wait_until 600 '[ "$(state_of "$a")" = running ] && [ "$(state_of "$b")" = running ]' ||
		fail "$a and $b did not boot"
}

at_first_stop() {
	cat >"$TMP/at-first-stop.sh" <<SH
#!/bin/sh
[ "\$GPURENT_EVENT_KIND" = stop-ordered ] && mkdir "$TMP/signalled" 2>/dev/null &&
	date +%s%N >"$TMP/signalled/at" && echo "\$PPID" >"$TMP/signalled/pid" && kill -$1 "\$PPID"
exit 0
SH
	chmod +x "$TMP/at-first-stop.sh"
	expect_ok g config set notify.command "$TMP/at-first-stop.sh"
}
