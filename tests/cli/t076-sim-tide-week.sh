#!/bin/bash
# The simulator's workload for the watcher: a daily tide of inference load (peak over trough
# GPURENT_SIM_TIDE, default 7), training jobs that end and leave their GPU idle, and
# interruptible instances taken back when the market rises over their bid, all from the
# seed and the simulated clock: a simulated week runs in seconds, and two worlds of one
# seed give the same events.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

# mean_util ID: the instance's GPU utilisation now, averaged over its GPUs.
mean_util() {
	g -o json metrics "$1" | jq '[.[].util_pct] | add / length | floor'
}

# The tide: busiest at 14:00 UTC, quietest at 02:00 UTC.
export GPURENT_SIM_TIME=1767261600	# 10:00 UTC
offer=$(ids_of 1)
tidal=$(g launch "$offer" --env SIM_WORKLOAD=tidal) || fail "launch"
expect_ok g sim advance 4h	# 14:00
peak=$(mean_util "$tidal")
expect_ok g sim advance 12h	# 02:00
trough=$(mean_util "$tidal")
check "peak $peak% at 14:00, trough $trough% at 02:00: about 7 to 1" \
	'[ "$peak" -ge 88 ] && [ "$trough" -ge 11 ] && [ "$trough" -le 15 ]'
trough3=$(GPURENT_SIM_TIDE=3 mean_util "$tidal")
check "GPURENT_SIM_TIDE=3: trough $trough3%, about a third of the peak" \
	'[ "$trough3" -ge 28 ] && [ "$trough3" -le 33 ]'
expect_rc 2 env GPURENT_SIM_TIDE=0 "$GPURENT" ls

# A job of two hours: busy, then idle for good.
job=$(g launch "$(ids_of 2 | tail -1)" --env SIM_WORKLOAD=job:2h) || fail "launch"
expect_ok g sim advance 1h
busy=$(mean_util "$job")
expect_ok g sim advance 2h
done_util=$(mean_util "$job")
check "a job busy at $busy%, then idle at $done_util%" '[ "$busy" -ge 80 ] && [ "$done_util" -le 3 ]'

# week HOME: a fleet of the seed's own workloads and two thin-bid interruptible instances,
# watched every two simulated hours for a week; its journal, without sequence numbers.
week() {
	local GPURENT_HOME=$1 i o
	export GPURENT_HOME
	export GPURENT_SIM_TIME=1767225600	# 2026-01-01T00:00:00Z
	g config set idle.after 1h >/dev/null || fail "config"
	for o in $(ids_of 8); do
		g launch "$o" --label fleet >/dev/null || fail "launch $o"
	done
	# The bid is today's price: the first rise of the market takes it back.
	g -o json offers gpus=1 type=interruptible | jq -r '.[0:2][] | .id + " " + (.price_hour | tostring)' >"$GPURENT_HOME.spot"
	while read -r o bid; do
		g launch "$o" --bid "$bid" --label spot >/dev/null || fail "launch $o"
	done <"$GPURENT_HOME.spot"
	for ((i = 0; i < 84; i++)); do
		g sim advance 2h >/dev/null || fail "advance"
		g watch --once --interval 2h >/dev/null || fail "watch pass $i"
	done
	g -o json events | jq -c '.[] | [.at, .level, .kind, .policy, .instance_id, .util_pct, .message]'
}
start=$(date +%s)
week "$TMP/world1" >"$TMP/week1"
week "$TMP/world2" >"$TMP/week2"
echo "two simulated weeks in $(($(date +%s) - start)) s" >&2
check "the same seed gives the same events" 'cmp -s "$TMP/week1" "$TMP/week2"'
check "a week has events" '[ "$(wc -l <"$TMP/week1")" -gt 5 ]'
check "finished jobs' instances stopped as idle" 'grep -q "\"stop-verified\",\"idle\"" "$TMP/week1"'
check "preemption reported" 'grep -q "\"preempted\"" "$TMP/week1"'
GPURENT_SIM_SEED=7 week "$TMP/world3" >"$TMP/week3"
check "another seed, another week" '! cmp -s "$TMP/week1" "$TMP/week3"'
pass
