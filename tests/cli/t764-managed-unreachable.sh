#!/usr/bin/env bash
# run --managed when ssh stops answering while the provider still says the machine runs:
# past --grace the machine counts as lost, is destroyed, and the job resumes on another.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd

# Attempt 1 counts to 4 and holds (at most 60 s); attempt 2 counts on to 8.
job='d=$GPURENT_CHECKPOINT_DIR; touch "$d/out.txt"; n=$(wc -l <"$d/out.txt")
while [ "$n" -lt 8 ]; do n=$((n + 1)); echo "$n" >>"$d/out.txt"; w=0
while [ "$GPURENT_ATTEMPT" = 1 ] && [ "$n" = 4 ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
done'
"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1s --grace 3s \
	--fetch "ckpt/out.txt:$TMP/result" -- "$job" >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null" "close_masters")
ckpts="$GPURENT_HOME/jobs/m1/checkpoints"
newest() { cat "$(ls -d "$ckpts"/[0-9]* 2>/dev/null | tail -1)/out.txt" 2>/dev/null | wc -l; }
wait_until 400 '! kill -0 "$ctl" 2>/dev/null || [ "$(newest)" = 4 ]'
[ "$(newest)" = 4 ] || fail "no checkpoint of 4 counts: $(cat "$TMP/ctl.err")"
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
run1=$(jq -r '.[0].job' <<<"$OUT")
# The machine hangs: its job stops, and ssh no longer answers; its provider says it runs.
kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")"
stop_sshd "$SSHD_PID"
wait_until 300 'grep -q "renting attempt 2" "$TMP/ctl.err"' || fail "not recovered: $(cat "$TMP/ctl.err")"
sshd_again sshd-again.log
wait "$ctl"
RC=$?
check "the job succeeded" '[ "$RC" = 0 ]'
check "every count once" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 8)" ]'
expect_ok g jobs show m1 -o json
check "attempt 1 ended unreachable past the grace" \
	'jq -e ".[0].why | test(\"^unreachable over ssh for [0-9]+s while its provider says it runs\")" <<<"$OUT" >/dev/null'
check "two attempts, attempt 1's machine destroyed" \
	'[ "$(jq length <<<"$OUT")" = 2 ] && ! g ls -o ids | grep -qx "$first"'
pass
