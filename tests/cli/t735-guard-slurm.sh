#!/usr/bin/env bash
# The instance guard on a Slurm job, on a real cluster with a real sshd standing in for the
# job's node: --until is refused (the job's --time is its deadline, held by Slurm); installed
# on the job's node, the agent alone, with the ssh connection closed and no watcher, cancels
# the idle job with scancel from the node.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm
g config set guard.interval 1s >/dev/null
g config set idle.after 2s >/dev/null
expect_ok g config set slurm.workdir "$TMP/slurm/jobs"
slurm_nodes_on_sshd	# the job's node n1 is reached as gpu-n1 over the sshd
nvidia_double h100x8.txt	# every GPU at 3% or less: idle at the default idle.threshold 5
# On a real node the Slurm clients find the cluster's configuration in /etc/slurm; here the
# node's scancel is told where the test's cluster keeps it.
cat >"$TMP/remote-bin/scancel" <<EOF2
#!/bin/sh
echo "\$*" >>"$TMP/scancel.args"
exec env -u SLURM_JWT SLURM_CONF='$SLURM_CONF' '$(command -v scancel)' "\$@"
EOF2
chmod +x "$TMP/remote-bin/scancel"
GDIR="$HOME/.gpurent-guard"
state() { sed -n "s/^$1=//p" "$GDIR/slurm-$JID/state" 2>/dev/null; }

expect_ok g launch slurm:gpu/h100 --count 1 --label t735 --wait --timeout 60
J=$OUT
JID=${J#slurm:}
check "the job runs" '[ "$(sl squeue -h -j "$JID" -o %T)" = RUNNING ]'

expect_rc 2 g guard install --until 1h "$J"
check "--until refused: the job's --time is its deadline" 'grep -q "deadline is its own time limit (its --time" <<<"$ERR"'
check "nothing installed" '[ ! -e "$GDIR/slurm-$JID" ]'

expect_ok g guard install --dry-run "$J"
check "dry run: the job" 'grep -qx "GR_TARGET=$JID" <<<"$OUT"'
expect_ok g guard install "$J"
check "install says the idle policy" 'grep -q "idle 2s" <<<"$ERR"'
CLEANUP_HOOKS+=("kill \$(cat '$GDIR/slurm-$JID/pid' 2>/dev/null) 2>/dev/null")
close_masters
wait_until 100 '[ -z "$(ssh_masters)" ]' || fail "ssh masters still up"
wait_until 300 '[ "$(state verdict)" = stopped ]' ||
	fail "not cancelled: $(cat "$GDIR/slurm-$JID/log" "$GDIR/slurm-$JID/out")"
check "scancel was given the job's id" '[ "$(cat "$TMP/scancel.args")" = "$JID" ]'
check "the log says it cancelled" 'grep -q "stop-ordered idle .*cancelled with scancel" "$GDIR/slurm-$JID/log"'
wait_job_cancelled "$JID"
check "Slurm cancelled it ($JOB_STATE)" '[ "$JOB_STATE" = CANCELLED ]'
pass
