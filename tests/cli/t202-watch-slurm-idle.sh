#!/usr/bin/env bash
# watch cancels an idle Slurm job as it stops an idle instance (issue 15 part 5), on a real
# cluster: its utilisation comes from the GPU tool on the job's node over ssh (a real sshd
# stands in for the node, named through slurm.ssh_host's %n, with an nvidia-smi double);
# a job cannot be stopped, so idle.action = stop cancels it; the cancel is verified by
# reading the job back (CANCELLED) and journaled; a dry run cancels nothing; a job busy on
# its GPUs, or whose node does not answer, is never cancelled. `metrics` reads the job's node
# over the same path.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
start_slurm
expect_ok g config set slurm.workdir "$TMP/slurm/jobs"
# The node n1 is reached as gpu-n1 over the sshd.
slurm_nodes_on_sshd
expect_ok g config set idle.threshold 5
expect_ok g config set idle.after 30m
expect_ok g config set idle.action stop

# A busy recording (every GPU at 90 %) and the idle one (0-2 %).
awk -F', ' -v OFS=', ' '/^#/ { print; next } { $5 = 90; print }' \
	"$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/busy.txt"
nvidia_double "$TMP/busy.txt"

expect_ok g launch slurm:gpu/h100 --count 1 --label idle-job --wait --timeout 60
J=$OUT
JID=${J#slurm:}
check "the job runs" '[ "$(sl squeue -h -j "$JID" -o %T)" = RUNNING ]'
expect_ok g show "$J" -o json
check "reached as gpu-n1" '[ "$(jq -r .ssh_host <<<"$OUT")" = gpu-n1 ]'

# Busy: observed over ssh, not idle.
expect_ok g watch --once --interval 1m
check "busy: nothing to say or do: $OUT" '[[ $OUT != *idle* && $OUT != *unobserved* && $OUT != *ordered* ]]'
check "sampled on the node over ssh" '[ "$(nvidia_queries)" -ge 1 ]'
# `metrics` reads the job's node the same way (issue 15 part 5): a cluster has no metrics API.
expect_ok g metrics "$J" -o json
check "metrics of the job: eight GPUs at 90 % over ssh" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .util_pct == 90 and .instance_id == \"$J\")" <<<"$OUT" >/dev/null'

# Idle from now: not before idle.after (the watcher's record of when the idle spell began
# is moved back, as if the passes in between had run; the cluster runs on the wall clock).
nvidia_double h100x8.txt
expect_ok g watch --once --interval 1m
check "idle, not for long enough yet: $OUT" '[[ $OUT != *ordered* ]]'
since=$(sqlite3 "$DB" "SELECT idle_since FROM watch_state WHERE instance_id = '$J'")
check "the idle spell is recorded ($since)" '[ "${since:-0}" -gt 0 ]'
sqlite3 "$DB" \
	"UPDATE watch_state SET idle_since = idle_since - 1500 WHERE instance_id = '$J'" || fail "sqlite3"
expect_ok g watch --once --interval 1m
check "25 minutes and the passes' time: still not: $OUT" '[[ $OUT != *ordered* ]]'
sqlite3 "$DB" \
	"UPDATE watch_state SET idle_since = idle_since - 400 WHERE instance_id = '$J'" || fail "sqlite3"

# The dry run says it would cancel, and cancels nothing.
expect_ok g watch --once --dry-run --interval 1m
check "dry run: would cancel: $OUT" \
	'[[ $OUT == *"would: info stop-as-cancel $J: a Slurm job can only be cancelled (destroy): stopping it means cancelling it (destroy)"* ]] &&
	 [[ $OUT == *"would: action destroy-ordered $J: destroy (dry run: nothing sent)"* ]]'
check "still running" '[ "$(sl squeue -h -j "$JID" -o %T)" = RUNNING ]'

expect_ok g watch --once --interval 1m
check "idle for idle.after: $OUT" '[[ $OUT == *"info idle $J: GPU utilisation 0% <= 5% for"*"(idle.after 30m00s)"* ]]'
check "stop means cancel: $OUT" '[[ $OUT == *"info stop-as-cancel $J:"* && $OUT == *"action destroy-ordered $J: order 1 of 3 accepted"* ]]'
check "no stop-unsupported alert" '[[ $OUT != *stop-unsupported* ]]'
wait_job_cancelled "$JID"
check "Slurm cancelled it ($JOB_STATE)" '[ "$JOB_STATE" = CANCELLED ]'
expect_ok g watch --once --interval 1m
check "verified by reading the job back: $OUT" \
	'[[ $OUT == *"action destroy-verified $J: the provider reports it destroyed: CANCELLED"* ]]'
expect_ok g -o json events
check "journaled: idle, stop-as-cancel, ordered, verified, policy idle" \
	'[ "$(jq -r "[.[] | select(.instance_id == \"$J\") | .kind] | join(\" \")" <<<"$OUT")" = "idle stop-as-cancel destroy-ordered destroy-verified" ] &&
	 jq -e "all(.[] | select(.instance_id == \"$J\"); .policy == \"idle\")" <<<"$OUT" >/dev/null'

# A node that does not answer ssh: unobserved, never idle, never cancelled.
expect_ok g launch slurm:gpu/h100 --count 1 --label dark-job --wait --timeout 60
K=$OUT
KID=${K#slurm:}
expect_ok g config set slurm.ssh_port 1
expect_ok g watch --once --interval 1m
check "unobserved: $OUT" '[[ $OUT == *"info unobserved $K: GPU utilisation unknown"* ]]'
expect_ok g watch --once --interval 1m
check "still not cancelled" '[[ $OUT != *ordered* ]] && [ "$(sl squeue -h -j "$KID" -o %T)" = RUNNING ]'
expect_ok g destroy --yes "$K"
pass
