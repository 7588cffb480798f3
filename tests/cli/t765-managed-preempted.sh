#!/usr/bin/env bash
# The issue's run: a job that counts to 15, checkpointing its count and resuming from it,
# run --managed; its first machine fails under it (sim preempt --reason host-failure), its
# second stops answering ssh while its provider says it runs (--reason unreachable); it
# finishes on a third with every count once, and at no moment were two machines rented.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=60
start_sshd

# Attempt 1 holds at 5, attempt 2 at 10 (each at most 60 s), until their machines go.
job='d=$GPURENT_CHECKPOINT_DIR; touch "$d/out.txt"; n=$(wc -l <"$d/out.txt")
echo "attempt $GPURENT_ATTEMPT from $n"
while [ "$n" -lt 15 ]; do n=$((n + 1)); echo "$n" >>"$d/out.txt"; w=0
while [ "$n" = $((GPURENT_ATTEMPT * 5)) ] && [ "$GPURENT_ATTEMPT" -lt 3 ] && [ $w -lt 600 ]; do
	sleep 0.1; w=$((w + 1)); done
done'
"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1s --grace 2s \
	--fetch "ckpt/out.txt:$TMP/result" -- "$job" >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null" "close_masters")
ckpts="$GPURENT_HOME/jobs/m1/checkpoints"
newest() { cat "$(ls -d "$ckpts"/[0-9]* 2>/dev/null | tail -1)/out.txt" 2>/dev/null | wc -l; }

# take N REASON: once attempt N's count is checkpointed, the simulator takes its machine
# away, and its processes stop with it.
take() {
	wait_until 400 "! kill -0 $ctl 2>/dev/null || [ \"\$(newest)\" = $(($1 * 5)) ]"
	[ "$(newest)" = $(($1 * 5)) ] || fail "no checkpoint of $(($1 * 5)): $(cat "$TMP/ctl.err")"
	expect_ok g jobs show m1 -o json
	local inst run
	inst=$(jq -r ".[$1 - 1].instance" <<<"$OUT")
	run=$(jq -r ".[$1 - 1].job" <<<"$OUT")
	expect_ok g sim preempt "$inst" --reason "$2"
	kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run##*/}/pid")"
}
take 1 host-failure
take 2 unreachable
wait "$ctl"
RC=$?
check "the job succeeded" '[ "$RC" = 0 ]'
check "every count once, in order" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 15)" ]'
expect_ok g jobs show m1 -o json
attempts=$OUT
check "three attempts: failed, unreachable, done ($(jq -c "[.[].why]" <<<"$attempts"))" \
	'jq -e "length == 3 and (.[0].why | startswith(\"failed\")) and
	(.[1].why | startswith(\"unreachable over ssh\")) and .[2].why == \"done\"" <<<"$attempts" >/dev/null'
check "each began only after the one before ended" \
	'jq -e ".[0].ended <= .[1].started and .[1].ended <= .[2].started" <<<"$attempts" >/dev/null'
check "three machines rented in all" '[ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 3 ]'
for n in 2 3; do
	log="$HOME/.gpurent/jobs/$(jq -r ".[$n - 1].job" <<<"$attempts" | sed 's,.*/,,')/log"
	check "attempt $n resumed from the checkpoint of $(((n - 1) * 5))" \
		'[ "$(cat "$log")" = "attempt $n from $(((n - 1) * 5))" ]'
done
expect_ok g jobs m1 -o json
check "done after two recoveries" \
	'[ "$(jq -r ".[0] | [.state, .attempt, .recoveries] | @tsv" <<<"$OUT")" = "done	3	2" ]'
expect_ok g events -o json
check "an event for each recovery" \
	'[ "$(jq "[.[] | select(.kind == \"managed-recovery\" and .label == \"m1\")] | length" <<<"$OUT")" = 2 ]'
pass
