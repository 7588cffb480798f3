#!/usr/bin/env bash
# A fatal Xid on a managed job's machine is a loss: the controller samples the machine
# before each checkpoint, and when the newest Xid of a GPU in its kernel log is fatal (79,
# fallen off the bus) the attempt ends lost, "xid 79", no checkpoint is pulled after it, the
# machine is destroyed and the job goes on from the checkpoint before on the next. An
# application's Xid (13) is no loss. The machine: the sshd host with nvidia-smi and dmesg
# doubles (the recorded 8 x H100; the kernel log as $TMP/kmsg holds it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/managed.sh"
. "$(dirname "$0")/probes.sh"
managed_on_sshd
nvidia_double h100x8-pci.txt
printf '#!/bin/sh\ncat "%s/kmsg" 2>/dev/null\nexit 0\n' "$TMP" >"$TMP/remote-bin/dmesg"
chmod +x "$TMP/remote-bin/dmesg"
xid_line() {
	printf '[%s.000000] NVRM: Xid (PCI:0000:3a:00): %s, pid=4242, name=python3, %s\n' "$@"
}
xid_line 100 13 'Graphics SM Warp Exception' >"$TMP/kmsg"
xids() { sqlite3 "$DB" "SELECT count(*) FROM samples WHERE xid = $1" 2>/dev/null || echo 0; }

# m1 counts to 6, attempt 1 holding at 3.
touch "$TMP/gate.2"
run_counting
ckpts="$GPURENT_HOME/jobs/m1/checkpoints"
newest() { cat "$(ls -d "$ckpts"/[0-9]* 2>/dev/null | tail -1)/out.txt" 2>/dev/null | wc -l; }
wait_until 400 '! kill -0 $ctl 2>/dev/null || { [ "$(newest)" = 3 ] && [ "$(xids 13)" -gt 0 ]; }'
check "checkpointed at 3, the machine sampled with its Xid 13 ($(cat "$TMP/ctl.err"))" \
	'[ "$(newest)" = 3 ] && [ "$(xids 13)" -gt 0 ]'
check "an application's Xid is no loss" '[ "$(g jobs m1 -o json | jq -r ".[0].attempt")" = 1 ]'
seen=$(ls "$ckpts")

xid_line 200 79 'GPU has fallen off the bus.' >>"$TMP/kmsg"
wait_until 400 '[ -e "$TMP/gate.2.held" ]' || fail "no second attempt: $(cat "$TMP/ctl.err")"
rm -f "$TMP/kmsg"
expect_ok g jobs show m1 -o json
run1=$(jq -r '.[0].job' <<<"$OUT")
kill -KILL -- "-$(cat "$HOME/.gpurent/jobs/${run1##*/}/pid")"
check "attempt 1 ended lost: xid 79" '[ "$(jq -r ".[0].why" <<<"$OUT")" = "xid 79" ]'
check "no checkpoint pulled after the Xid" '[ "$(ls "$ckpts")" = "$seen" ]'
expect_ok g show "$(jq -r '.[0].instance' <<<"$OUT")" -o json
check "its machine destroyed" '[[ $(jq -r .state <<<"$OUT") == destroy* ]]'
rm -f "$TMP/gate.2"
counted_once "on the next machine"
expect_ok g jobs show m1 -o json
check "two attempts, the second done" '[ "$(jq -r "[length, .[1].why] | @tsv" <<<"$OUT")" = "2	done" ]'
expect_ok g events -o json
check "the loss said so" \
	'jq -e "any(.[]; .kind == \"managed-lost\" and (.message | contains(\": xid 79;\")))" <<<"$OUT" >/dev/null'

# m2's command fails with its GPU (--every 1h: no checkpoint looks first): a machine's
# failure, not the command's own, so the job goes on instead of failing.
job='if [ "$GPURENT_ATTEMPT" = 1 ]; then touch "'"$TMP"'/reached"; w=0
while [ ! -e "'"$TMP"'/die" ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done; exit 3; fi'
rm -f "$TMP/gate.2.held"
touch "$TMP/gate.2"
xid_line 300 13 'Graphics SM Warp Exception' >"$TMP/kmsg"
"$GPURENT" run --managed --gpu h100 --checkpoint-dir ckpt --every 1h -- "$job" \
	>"$TMP/ctl2.out" 2>"$TMP/ctl2.err" &
ctl=$!
CLEANUP_HOOKS+=("kill -KILL $ctl 2>/dev/null")
wait_until 400 '[ -e "$TMP/reached" ]' || fail "m2 did not start: $(cat "$TMP/ctl2.err")"
xid_line 400 48 'An uncorrectable double bit error' >>"$TMP/kmsg"
touch "$TMP/die"
wait_until 400 '[ -e "$TMP/gate.2.held" ]' || fail "m2: no second attempt: $(cat "$TMP/ctl2.err")"
rm -f "$TMP/kmsg" "$TMP/gate.2"
wait "$ctl"
RC=$?
check "m2 succeeded on the next machine ($(cat "$TMP/ctl2.err"))" '[ "$RC" = 0 ]'
expect_ok g jobs show m2 -o json
check "its first attempt lost: xid 48" '[ "$(jq -r "[length, .[0].why, .[1].why] | @tsv" <<<"$OUT")" = "2	xid 48	done" ]'
pass
