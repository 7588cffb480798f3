#!/usr/bin/env bash
# logs of a managed job: each attempt's log is pulled with its checkpoints and kept, so
# when attempt 1's machine is lost, `logs m1` still prints what attempt 1 printed up to its
# last pull (its header on stderr says so), then attempt 2's whole log; --attempt K prints
# one attempt's; an attempt with no kept log says so.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd

# Counts to 20, one line each, resuming from its checkpoint; attempt 1 holds at 10 (at most
# 60 s) until the test has seen count 10 in its kept log and takes its machine away.
mkdir -p "$TMP/src"
cat >"$TMP/src/count.sh" <<'JOB'
out=$GPURENT_CHECKPOINT_DIR/out.txt
mkdir -p "${out%/*}" && touch "$out"
from=$(wc -l <"$out")
echo "attempt $GPURENT_ATTEMPT from $from"
for n in $(seq $((from + 1)) 20); do
	echo "$n" >>"$out"
	echo "count $n"
	if [ "$GPURENT_ATTEMPT:$n" = 1:10 ]; then for _ in $(seq 600); do sleep 0.1; done; fi
done
JOB

"$GPURENT" run --managed --gpu h100 --count 1 --sync "$TMP/src" --checkpoint-dir ckpt \
	--every 1s --grace 5s -- sh count.sh >"$TMP/ctl.out" 2>"$TMP/ctl.err" &
ctl=$!
CLEANUP_HOOKS+=("kill $ctl 2>/dev/null")
kept1="$GPURENT_HOME/jobs/m1/attempt-1.log"
wait_until 400 '! kill -0 "$ctl" 2>/dev/null || grep -qx "count 10" "$kept1" 2>/dev/null'
grep -qx "count 10" "$kept1" 2>/dev/null || fail "attempt 1's log was not kept: $(cat "$TMP/ctl.err")"
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
run1=$(jq -r '.[0].job' <<<"$OUT")
expect_ok g logs m1 --attempt 1
check "the current attempt is read live, after its header" \
	'[ "$OUT" = "$(printf "attempt 1 from 0\n"; seq -f "count %g" 1 10)" ] &&
	[ "$ERR" = "== attempt 1 on $first (current) ==" ]'
# The machine dies with its processes; its log with it.
pid1=$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")
kill -KILL -- "-$pid1"
expect_ok g destroy "$first" --yes
rm -rf "$HOME/.gpurent/jobs/${run1##*/}"
wait "$ctl"
RC=$?
check "the job succeeds" '[ "$RC" = 0 ]' || cat "$TMP/ctl.err" >&2
expect_ok g jobs show m1 -o json
second=$(jq -r '.[1].instance' <<<"$OUT")
check "two attempts" '[ "$(jq length <<<"$OUT")" = 2 ] && [ "$second" != "$first" ]'

one="$(printf "attempt 1 from 0\n"; seq -f "count %g" 1 10)"
two="$(printf "attempt 2 from 10\n"; seq -f "count %g" 11 20)"
expect_ok g logs m1
check "attempt 1 up to its last pull, then attempt 2 to the end" \
	'[ "$OUT" = "$one"$'"'"'\n'"'"'"$two" ]'
check "a header for each, the lost one's ending at its last pull" \
	'[ "$ERR" = "== attempt 1 on $first: kept up to its last pull; what it printed after that was lost with the machine ==
== attempt 2 on $second ==" ]'
expect_ok g logs m1 --attempt 1
check "--attempt 1 alone" '[ "$OUT" = "$one" ] && [ "$(wc -l <<<"$ERR")" = 1 ]'
expect_ok g logs m1 --attempt 2 --tail 2
check "--attempt 2 --tail 2" '[ "$OUT" = "$(seq -f "count %g" 19 20)" ]'
rm "$kept1"
expect_rc 3 g logs m1 --attempt 1
check "an attempt with nothing kept says so" \
	'[ -z "$OUT" ] && [ "$ERR" = "== attempt 1 on $first: no log kept (its machine was lost before one was pulled) ==" ]'
expect_ok g logs m1
check "and the others still print" '[ "$OUT" = "$two" ]'
expect_rc 3 g logs m1 --attempt 3
expect_rc 2 g logs "$second/1" --attempt 1
pass
