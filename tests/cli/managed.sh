# managed.sh - for the managed job tests (t76x, t77x): source after lib.sh.
#
#   managed_on_sshd        the simulator's instances on a real sshd (sshd.sh), its clock
#                          sped up 100 times, the controllers' gate hook (GPURENT_MANAGED_GATE:
#                          $TMP/gate.N holds attempt N's rental, $TMP/gate.started-N its start)
#   COUNT_JOB              a job that counts to 6 into $GPURENT_CHECKPOINT_DIR/out.txt,
#                          resuming from its length (saying "attempt N from COUNT" first);
#                          attempt 1 holds at 3, at most 60 s
#   run_counting ARGS...   run --managed COUNT_JOB in the background, a checkpoint every
#                          second, out.txt fetched into $TMP/result, with ARGS; sets ctl,
#                          killed at the end; its output in $TMP/ctl.out and ctl.err
#   counted_once [WHAT]    wait for it, and check that it succeeded with every count once
#   start_watch            gpurent watch --interval 1 in the background; sets watcher,
#                          stopped at the end; its output in $TMP/watch.out
. "$(dirname "${BASH_SOURCE[0]}")/sshd.sh"

managed_on_sshd() {
	export GPURENT_SIM_SPEED=100
	start_sshd
	CLEANUP_HOOKS+=("close_masters")
	export GPURENT_MANAGED_GATE="$TMP/gate"
}

COUNT_JOB='d=$GPURENT_CHECKPOINT_DIR; touch "$d/out.txt"; n=$(wc -l <"$d/out.txt")
echo "attempt $GPURENT_ATTEMPT from $n"
while [ "$n" -lt 6 ]; do n=$((n + 1)); echo "$n" >>"$d/out.txt"; w=0
while [ "$GPURENT_ATTEMPT" = 1 ] && [ "$n" = 3 ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
done'

run_counting() {
	"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1s "$@" \
		--fetch "ckpt/out.txt:$TMP/result" -- "$COUNT_JOB" >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
	ctl=$!
	CLEANUP_HOOKS+=("kill -KILL $ctl 2>/dev/null")
}

counted_once() {
	wait "$ctl"
	RC=$?
	check "the job succeeded${1:+ $1} ($(cat "$TMP/ctl.err"))" '[ "$RC" = 0 ]'
	check "every count once, in order" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 6)" ]'
}

start_watch() {
	"$GPURENT" watch --interval 1 >"$TMP/watch.out" 2>&1 &
	watcher=$!
	CLEANUP_HOOKS+=("kill $watcher 2>/dev/null")
}
