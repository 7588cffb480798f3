#!/usr/bin/env bash
# run --managed: a job that counts to 30, writing each count to its checkpoint directory and
# resuming from it, loses its machine mid-run (destroyed behind the controller's back, its
# processes killed); the controller ends the attempt, rents another machine, restores the
# newest whole checkpoint and the job finishes there: every count once, none lost beyond
# that checkpoint, never two machines rented at once, and the job's cost is the sum of its
# attempts' bills.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd

# The job: resume from out.txt's length, count to 30; attempt 1 holds at 10 until the test
# releases it (at most 60 s), so the machine is lost mid-run with a checkpoint of 10 pulled.
cat >"$TMP/count.sh" <<'JOB'
d=$GPURENT_CHECKPOINT_DIR
mkdir -p "$d"
touch "$d/out.txt"
n=$(wc -l <"$d/out.txt")
echo "attempt $GPURENT_ATTEMPT resumed=${GPURENT_RESUMED:-0} from $n"
while [ "$n" -lt 30 ]; do
	n=$((n + 1))
	echo "$n" >>"$d/out.txt"
	w=0
	while [ "$GPURENT_ATTEMPT" = 1 ] && [ "$n" = 10 ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done
done
JOB
mkdir -p "$TMP/src"
cp "$TMP/count.sh" "$TMP/src/count.sh"

"$GPURENT" run --managed --gpu h100 --count 1 --sync "$TMP/src" --checkpoint-dir ckpt \
	--every 1s --grace 5s --fetch "ckpt/out.txt:$TMP/result" -- sh count.sh \
	>"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null")
ckpts="$GPURENT_HOME/jobs/m1/checkpoints"
wait_until 400 '! kill -0 "$ctl" 2>/dev/null || [ "$(cat "$ckpts"/[0-9]*/out.txt 2>/dev/null | sort -u | wc -l)" -ge 10 ]'
[ "$(cat "$ckpts"/[0-9]*/out.txt 2>/dev/null | sort -u | wc -l)" -ge 10 ] ||
	fail "no checkpoint of 10 counts: $(cat "$TMP/ctl.err")"
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
check "attempt 1 is on an instance" '[[ $first == sim:i-* ]]'
run1=$(jq -r '.[0].job' <<<"$OUT")
# The machine dies: its processes with it, and its provider forgets it.
pid1=$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")
kill -KILL -- "-$pid1"
expect_ok g destroy "$first" --yes
wait "$ctl"
RC=$?
check "the controller ends with the job's success" '[ "$RC" = 0 ]' || cat "$TMP/ctl.err" >&2
check "the job id came first on stdout" '[ "$(head -1 "$TMP/ctl.out")" = m1 ]'
check "every count once, in order" '[ "$(cat "$TMP/result/out.txt")" = "$(seq 1 30)" ]'
expect_ok g jobs show m1 -o json
check "two attempts, on sim" '[ "$(jq -r "[length, .[0].provider, .[1].provider] | @tsv" <<<"$OUT")" = "2	sim	sim" ]'
check "attempt 1 ended lost, before attempt 2 began" \
	'jq -e ".[0].why | test(\"gone|destroy\")" <<<"$OUT" >/dev/null &&
	[ "$(jq -r ".[0].ended <= .[1].started" <<<"$OUT")" = true ]'
second=$(jq -r '.[1].instance' <<<"$OUT")
check "attempt 2 on another machine" '[ "$second" != "$first" ] && [[ $second == sim:i-* ]]'
check "attempt 2 resumed from the checkpoint of 10" \
	'grep -q "attempt 2 resumed=1 from 10" "$HOME/.gpurent/jobs/$(jq -r ".[1].job" <<<"$OUT" | sed "s,.*/,,")/log"'
c1=$(jq -r '.[0].cost' <<<"$OUT")
c2=$(jq -r '.[1].cost' <<<"$OUT")
expect_ok g jobs m1 -o json
check "done, one recovery, attempt 2" \
	'[ "$(jq -r ".[0] | [.state, .recoveries, .attempt] | @tsv" <<<"$OUT")" = "done	1	2" ]'
total=$(jq -r '.[0].cost' <<<"$OUT")
check "the job's cost is the sum of its attempts' ($c1 + $c2 = $total)" \
	'jq -ne "($c1 + $c2 - $total) | fabs < 0.0000005" >/dev/null && jq -ne "$c1 > 0 and $c2 > 0" >/dev/null'
expect_ok g costs --by instance -o json
check "each attempt's cost is what the ledger billed its machine" \
	'[ "$(jq -r ".rows[] | select(.key == \"$first\") | .spent" <<<"$OUT")" = "$c1" ] &&
	[ "$(jq -r ".rows[] | select(.key == \"$second\") | .spent" <<<"$OUT")" = "$c2" ]'
check "no other machine was rented" '[ "$(jq ".rows | length" <<<"$OUT")" = 2 ]'
pass
