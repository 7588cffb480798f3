#!/usr/bin/env bash
# kill mN cancels a managed job: a last checkpoint is pulled, its machine destroyed, and the
# job ends cancelled, its cost still the sum of its attempts. With its controller running
# (m1), kill marks it and the controller does it; with none (m2, detached), kill does it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=60
start_sshd
CLEANUP_HOOKS+=("close_masters")

# The job writes its checkpoint once, says so, and holds (at most 60 s); --every 1h leaves
# the cancel's pull the only one.
job='echo one >"$GPURENT_CHECKPOINT_DIR/out.txt"; touch "'"$TMP"'/reached.$GPURENT_JOB"
w=0; while [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done'
run_of() { g jobs show "$1" -o json | jq -r '.[0].job // empty'; }
submit() {
	jid=$1
	"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1h -- "$job" \
		>"$TMP/ctl.$1.out" 2>"$TMP/ctl.$1.err" &
	ctl=$!
	CLEANUP_HOOKS+=("kill $ctl 2>/dev/null")
	wait_until 400 "! kill -0 $ctl 2>/dev/null || [ -e \"$TMP/reached.$1\" ]"
	[ -e "$TMP/reached.$1" ] || fail "$1 did not start: $(cat "$TMP/ctl.$1.err")"
	# The simulator's destroy leaves the sshd host's processes: the test stops them.
	wait_until 100 "[ -n \"\$(run_of $1)\" ]"
	run=$(run_of "$1")
	CLEANUP_HOOKS+=("kill -KILL -- -$(cat "$HOME/.gpurent/jobs/${run##*/}/pid") 2>/dev/null")
	check "$1: no checkpoint before the cancel" \
		'! ls -d "$GPURENT_HOME/jobs/$jid/checkpoints"/[0-9]* 2>/dev/null'
}
# cancelled JOB: the checks of a cancelled job.
cancelled() {
	jid=$1
	expect_ok g jobs "$1" -o json
	check "$1 is cancelled" '[ "$(jq -r ".[0].state" <<<"$OUT")" = cancelled ]'
	total=$(jq -r '.[0].cost' <<<"$OUT")
	check "$1: the last checkpoint was pulled" \
		'[ "$(cat "$GPURENT_HOME/jobs/$jid/checkpoints/000001/out.txt")" = one ]'
	expect_ok g jobs show "$1" -o json
	inst=$(jq -r '.[0].instance' <<<"$OUT")
	c1=$(jq -r '.[0].cost' <<<"$OUT")
	check "$1: one attempt, ended cancelled" \
		'[ "$(jq -r "[length, .[0].why, .[0].ended != null] | @tsv" <<<"$OUT")" = "1	cancelled	true" ]'
	check "$1: its cost is its attempt's ($c1 = $total)" \
		'[ "$total" = "$c1" ] && jq -ne "$c1 > 0" >/dev/null'
	expect_ok g ls -o json
	check "$1: its machine $inst is destroyed, none is left" \
		'[[ $inst == sim:i-* ]] && jq -e "all(.[]; .state == \"destroying\")" <<<"$OUT" >/dev/null'
	expect_ok g events -o json
	check "$1: an event says it was cancelled" \
		'[ "$(jq "[.[] | select(.kind == \"managed-cancelled\" and .label == \"$jid\")] | length" <<<"$OUT")" = 1 ]'
}

submit m1
expect_ok g __complete args kill ""
check "managed job ids complete" '[[ $OUT == *m1* ]]'
expect_ok g kill m1
check "kill names the job" '[ "$OUT" = m1 ]'
wait "$ctl"
RC=$?
check "the controller ended it and stopped (exit $RC)" '[ "$RC" = 1 ]'
check "the controller said so" 'grep -q "m1 was cancelled" "$TMP/ctl.m1.err"'
cancelled m1
expect_rc 13 g kill m1

submit m2
kill -INT "$ctl"
wait "$ctl"
RC=$?
check "m2's controller detached (exit $RC)" '[ "$RC" = 130 ]'
expect_ok g kill m2
cancelled m2
pass
