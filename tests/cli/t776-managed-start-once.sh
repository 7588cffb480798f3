#!/usr/bin/env bash
# A managed job's controller killed with -9 after the command started on its machine but
# before the start was recorded: `gpurent watch` takes the job over and finds the start by
# its mark on the machine (the attempt's key), so the command runs once, on one machine, and
# its files are not copied over again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/managed.sh"
managed_on_sshd

# Each start of the command says so outside the machine's job directories; the command
# rewrites the synced note, then holds (at most 60 s) until the test lets it end.
job='echo "start $GPURENT_ATTEMPT" >>"'"$TMP"'/starts"; echo ran >note
w=0; while [ ! -e "'"$TMP"'/go" ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done'
mkdir "$TMP/src"
echo synced >"$TMP/src/note"
touch "$TMP/gate.started-1"
"$GPURENT" run --managed --gpu h100 --sync "$TMP/src" --checkpoint-dir ckpt --every 1h \
	--fetch "note:$TMP/result" -- "$job" >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill -KILL $ctl 2>/dev/null")
wait_until 400 '[ -e "$TMP/gate.started-1.held" ]' ||
	fail "attempt 1's command did not start: $(cat "$TMP/ctl.err")"
{ kill -KILL "$ctl"; wait "$ctl"; } 2>/dev/null
rm -f "$TMP/gate.started-1"
wait_until 100 '[ -s "$TMP/starts" ] && [ "$(cat "$HOME"/.gpurent/jobs/*/work/note)" = ran ]' ||
	fail "the command did not run"
expect_ok g jobs show m1 -o json
check "its start is not recorded" '[ "$(jq -r ".[0].job" <<<"$OUT")" = null ]'
run=$(ls "$HOME/.gpurent/jobs")
CLEANUP_HOOKS+=("kill -KILL -- -$(cat "$HOME/.gpurent/jobs/$run/pid") 2>/dev/null")

start_watch
wait_until 300 '[ "$(g jobs show m1 -o json | jq -r ".[0].job")" != null ]' ||
	fail "the watcher did not take the start over: $(cat "$TMP/watch.out")"
touch "$TMP/go"
wait_until 300 '[ "$(g jobs m1 -o json | jq -r ".[0].state")" = done ]' ||
	fail "the watcher did not finish the job: $(cat "$TMP/watch.out")"
kill "$watcher"
wait "$watcher" 2>/dev/null
check "the command ran once ($(cat "$TMP/starts" | tr '\n' ' '))" '[ "$(cat "$TMP/starts")" = "start 1" ]'
check "in one job directory on the machine" '[ "$(ls "$HOME/.gpurent/jobs")" = "$run" ]'
check "on one machine" '[ "$(sqlite3 "$DB" "SELECT count(*) FROM sim_instances")" = 1 ]'
expect_ok g jobs show m1 -o json
check "one attempt, done, its run the one started ($OUT)" \
	'[ "$(jq -r "[length, .[0].why, .[0].job] | @tsv" <<<"$OUT")" = "1	done	$(jq -r ".[0].instance" <<<"$OUT")/$run" ]'
check "what it wrote was not synced over again" '[ "$(cat "$TMP/result/note")" = ran ]'
pass
