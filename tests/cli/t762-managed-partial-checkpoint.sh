#!/usr/bin/env bash
# A checkpoint pull cut short by the loss of its machine is never restored: the pull goes to
# a partial name that is dropped, and the next machine resumes from the whole checkpoint
# before it. The work lost is counted from that checkpoint to the loss, not from the
# attempt's start, and the job's lost time is the sum of its attempts'.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd

# rsync on the "machine": the sender of a pull waits while $TMP/gate exists (at most 60 s),
# then fails when $TMP/cut exists, as a dropped connection does.
cat >"$TMP/remote-bin/rsync-gate" <<GATE
#!/bin/sh
case " \$* " in *" --sender "*)
	if [ -e "$TMP/gate" ]; then
		: >"$TMP/gate.held"
		w=0
		while [ -e "$TMP/gate" ] && [ \$w -lt 600 ]; do sleep 0.1; w=\$((w + 1)); done
		[ -e "$TMP/cut" ] && exit 12
	fi
esac
exec rsync "\$@"
GATE
chmod +x "$TMP/remote-bin/rsync-gate"
g config set ssh.rsync_path "$TMP/remote-bin/rsync-gate" >/dev/null

# Attempt 1 counts to 5, then to 8 once $HOME/go exists, then holds (each at most 60 s).
job='d=$GPURENT_CHECKPOINT_DIR; mkdir -p "$d"; touch "$d/out.txt"; n=$(wc -l <"$d/out.txt")
echo "attempt $GPURENT_ATTEMPT from $n"
while [ "$n" -lt 12 ]; do n=$((n + 1)); echo "$n" >>"$d/out.txt"; w=0
while [ "$GPURENT_ATTEMPT" = 1 ] && { [ "$n" = 5 ] && [ ! -e "$HOME/go" ] || [ "$n" = 8 ]; } &&
	[ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
done'
"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1s \
	--fetch "ckpt/out.txt:$TMP/result" -- "$job" >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null" "close_masters")
ckpts="$GPURENT_HOME/jobs/m1/checkpoints"
# A few whole checkpoints of 5, so that the newest is well after the attempt began.
wait_until 400 '! kill -0 "$ctl" 2>/dev/null || [ -e "$ckpts/000004/out.txt" ]'
[ -e "$ckpts/000004/out.txt" ] || fail "no fourth checkpoint: $(cat "$TMP/ctl.err")"
seen4=$(date +%s)
touch "$TMP/gate"
wait_until 100 '[ -e "$TMP/gate.held" ]' || fail "no pull reached the gate"
held=$(date +%s)
check "the newest whole checkpoint has 5" \
	'[ "$(cat "$(ls -d "$ckpts"/[0-9]* | tail -1)/out.txt" | wc -l)" = 5 ]'
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
run1=$(jq -r '.[0].job' <<<"$OUT")
work1="$HOME/.gpurent/jobs/${run1##*/}/work"
touch "$HOME/go"
wait_until 100 '[ "$(wc -l <"$work1/ckpt/out.txt")" = 8 ]' || fail "attempt 1 did not count to 8"
# Two seconds of work after the last whole checkpoint are lost, whatever the machine's pace.
wait_until 50 '[ "$(date +%s)" -ge $((held + 2)) ]'
kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")"
expect_ok g destroy "$first" --yes
touch "$TMP/cut"
rm -f "$TMP/gate"
wait "$ctl"
RC=$?
check "the job succeeded" '[ "$RC" = 0 ]'
check "no partial checkpoint is left" '! ls -a "$ckpts" | grep -q partial'
expect_ok g jobs show m1 -o json
attempts=$OUT
log2="$HOME/.gpurent/jobs/$(jq -r '.[1].job' <<<"$attempts" | sed 's,.*/,,')/log"
check "attempt 2 resumed from the whole checkpoint of 5, not the cut pull of 8" \
	'grep -qx "attempt 2 from 5" "$log2"'
check "every count once" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 12)" ]'
ended1=$(jq -r '.[0].ended | fromdate' <<<"$attempts")
lost1=$(jq -r '.[0].lost' <<<"$attempts")
# The last whole checkpoint was the fourth or a later one, its pull begun at most two
# seconds before the test saw the fourth, and before the held pull: the work lost is from it
# to the loss, at least (ended - held) and at most (ended - seen4 + 2). Counted from the
# attempt's start (four pulls a second apart before the fourth), it would be more.
check "attempt 1 lost the time since its last whole checkpoint ($lost1 s; ended $ended1, held $held, seen $seen4)" \
	'[ "$lost1" -ge $((ended1 - held)) ] && [ "$lost1" -le $((ended1 - seen4 + 2)) ]'
expect_ok g jobs m1 -o json
check "the job's lost time is its attempts' sum" \
	'[ "$(jq -r ".[0].lost" <<<"$OUT")" = "$(jq "[.[].lost] | add" <<<"$attempts")" ] && [ "$lost1" -ge 2 ]'
pass
