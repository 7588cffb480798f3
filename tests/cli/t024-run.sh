#!/usr/bin/env bash
# gpurent run, jobs, logs and kill against a real sshd: the job's own exit status, a job
# that outlives a killed gpurent and its ssh, logs --follow picking it up to its end,
# kill of a sleeping job, and the states jobs lists. The "instance" is this machine as the
# same user, so the job's files are under $HOME/.gpurent/jobs/N.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

# Attached: the output streams here, and gpurent ends with the job's status.
expect_rc 3 g run "$id" --name first -- 'echo hello; sleep 1; echo world >&2; exit 3'
check "the log streamed (stdout and stderr)" '[ "$OUT" = "hello
world" ]'
check "the job id was named" '[[ $ERR == *"job $id/1 started"* ]]'
check "its files on the instance" '[ "$(cat "$HOME/.gpurent/jobs/1/status")" = 3 ] && [ -s "$HOME/.gpurent/jobs/1/pid" ]'
expect_ok g jobs "$id/1" -o json
check "jobs: exited 3, with its name and command" \
	'[ "$(jq -r ".[0] | [.id, .name, .state, .exit_code] | @tsv" <<<"$OUT")" = "$id/1	first	exited	3" ]'
expect_ok g logs "$id/1" --tail 1
check "logs --tail 1" '[ "$OUT" = world ]'
expect_ok g run "$id" -- printf '%s|' 'a b' '$(touch x)' "it's"
check "several words are an argv, passed as they are" "[ \"\$OUT\" = 'a b|\$(touch x)|it'\\''s|' ]"

# Detached, then gpurent and its ssh killed: the job runs on and logs --follow ends with it.
# The job holds after two lines until the test releases it (at most 60 s), so a slow machine
# cannot let it end before it is checked.
expect_ok g run "$id" --detach --env 'GREETING=hi there' -- \
	'i=0; while [ $i -lt 6 ]; do echo "$GREETING $i"; i=$((i+1)); n=0;
	while [ $i = 2 ] && [ ! -e "$HOME/release-3" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done;
	done; exit 4'
job=$OUT
check "--detach prints the job id" '[ "$job" = "$id/3" ]'
"$GPURENT" logs "$job" --follow >"$TMP/follow1.out" 2>&1 &
gpid=$!
for ((i = 0; i < 50; i++)); do
	grep -q "hi there 1" "$TMP/follow1.out" && break
	sleep 0.1
done
sshpids=$(pgrep -P "$gpid" -x ssh)
kill -9 "$gpid" $sshpids 2>/dev/null
wait "$gpid" 2>/dev/null
check "the follower saw the job's first lines" 'grep -q "hi there 0" "$TMP/follow1.out"'
expect_ok g jobs "$job" -o json
check "the job still runs after its gpurent and ssh died" '[ "$(jq -r ".[0].state" <<<"$OUT")" = running ]'
touch "$HOME/release-3"
expect_rc 4 g logs "$job" --follow
check "logs --follow picks it up and ends with it, with its status" \
	'[[ $OUT == *"hi there 0"*"hi there 5" ]]'

# Ctrl-C (SIGINT to gpurent) detaches: exit 130, how to reattach, and the job runs on.
"$GPURENT" run "$id" -- 'echo started; n=0; while [ ! -e "$HOME/release-4" ] && [ $n -lt 600 ]; do
	sleep 0.1; n=$((n+1)); done; echo finished' >"$TMP/int.out" 2>"$TMP/int.err" &
gpid=$!
for ((i = 0; i < 50; i++)); do
	grep -q started "$TMP/int.out" && break
	sleep 0.1
done
kill -INT "$gpid"
wait "$gpid"
RC=$?
check "Ctrl-C detaches with 130" '[ "$RC" = 130 ]'
check "and says how to reattach" 'grep -q "logs $id/4 --follow" "$TMP/int.err"'
touch "$HOME/release-4"
expect_ok g logs "$id/4" --follow
check "the detached job ran to its end" '[ "$OUT" = "started
finished" ]'

# kill: TERM to the process group ends a sleeping job (and its children).
expect_ok g run "$id" --detach --name sleeper -- 'sleep 300 & wait'
sleeper=$OUT
expect_ok g jobs "$id" -o json
check "jobs of the instance: one running" '[ "$(jq -r "[.[] | select(.state == \"running\")] | length" <<<"$OUT")" = 1 ]'
spid=$(cat "$HOME/.gpurent/jobs/${sleeper##*/}/pid")
CLEANUP_HOOKS+=("kill -KILL -- -$spid 2>/dev/null")
expect_ok g kill "$sleeper" --grace 5
check "kill prints the job" '[ "$OUT" = "$sleeper" ]'
check "the process group is gone" '! kill -0 -- "-$spid" 2>/dev/null'
expect_ok g jobs -o json
check "jobs lists every state" \
	'[ "$(jq -r "[.[] | .state] | join(\",\")" <<<"$OUT")" = "exited,exited,exited,exited,killed" ]'
expect_rc 13 g kill "$sleeper"
check "killing an ended job is refused" '[[ $ERR == *"not running"* ]]'
expect_rc 3 g logs "$id/99"
check "an unknown job is named" '[[ $ERR == *"no job 99"* ]]'
expect_ok g __complete args logs "$id/"
check "job ids complete" '[[ $OUT == *"$sleeper"* ]]'

# The instance stops: a job that was running is lost.
expect_ok g run "$id" --detach -- sleep 300
lostjob=$OUT
lpid=$(cat "$HOME/.gpurent/jobs/${lostjob##*/}/pid")
CLEANUP_HOOKS+=("kill -- -$lpid 2>/dev/null")
expect_ok g stop "$id" --wait --timeout 60
expect_ok g jobs "$lostjob" -o json
check "a job on a stopped instance is lost" '[ "$(jq -r ".[0].state" <<<"$OUT")" = lost ]'
kill -- "-$lpid" 2>/dev/null
pass
