# watch.sh - helpers for the watcher tests (t070-t079): source after lib.sh.
#
# The simulated clock is fixed (GPURENT_SIM_TIME) and moved only by `sim advance`, so each
# test says exactly how much time passes between two passes of `gpurent watch --once`.
#   ids_of N [FILTER...]       the first N on-demand offers of one GPU
#   state_of ID                the instance's state, as `ls` has it
#   events_json                every event, as a JSON array, in $EV
#   count_events KIND [ID]     how many events of KIND (of instance ID)
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
