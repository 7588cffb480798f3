#!/usr/bin/env bash
# The ssh master of a gpurent killed with -9 does not outlive it (issue 34): after
# `kill -9` of an exporter sampling over ssh the master is gone (its watchdog ends it), and
# stays gone after a gpurent command on the same state directory; sshd holds no connection.
# With the master's watchdog killed too, the next gpurent command closes the master that
# nobody holds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_SPEED=200
start_sshd
nvidia_double single-rtx4000.txt
id=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60) || fail "launch"

# 1. The exporter, killed.
start_exporter
wait_scrape "^DCGM_FI_DEV_GPU_UTIL\\{.*instance_id=\"$id\""
master=$(ssh_masters)
check "the exporter samples through a master" '[ -n "$master" ]'
kill -9 "$EXPORTER_PID"
wait "$EXPORTER_PID" 2>/dev/null
# Its watchdog ends it before any other gpurent runs.
check "no master of the killed exporter is left" 'wait_until 30 "[ -z \"\$(ssh_masters)\" ]"'
check "and sshd holds no connection" 'wait_until 30 "[ \"\$(sshd_sessions)\" = 0 ]"'
expect_ok g ls -o ids
check "nor after a gpurent command" '[ -z "$(ssh_masters)" ] && [ "$(sshd_sessions)" = 0 ]'

# 2. The exporter and the master's watchdog (its parent, a gpurent), killed.
start_exporter
wait_scrape "^DCGM_FI_DEV_GPU_UTIL\\{.*instance_id=\"$id\""
master=$(ssh_masters)
check "a master again" '[ -n "$master" ] && [ "$(wc -w <<<"$master")" = 1 ]'
watchdog=$(ps -o ppid= -p "$master" | tr -d ' ')
check "its parent is a gpurent: its watchdog" \
	'[ "$(readlink "/proc/$watchdog/exe")" = "$(readlink -f "$GPURENT")" ]'
kill -9 "$EXPORTER_PID" "$watchdog"
wait "$EXPORTER_PID" 2>/dev/null
check "with nobody left to watch it, the master runs on" 'kill -0 "$master"'
expect_ok g ls -o ids
check "until the next gpurent closes it" 'wait_until 30 "[ -z \"\$(ssh_masters)\" ]"'
check "and sshd holds no connection" 'wait_until 30 "[ \"\$(sshd_sessions)\" = 0 ]"'
pass
