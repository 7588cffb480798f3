#!/usr/bin/env bash
# A Slurm job over more machines than gpurent follows at once (SESSION_NODES_MAX, 64):
# metrics --follow follows the first 64 and says that the rest are not followed, never
# silently. A slurmrestd look-alike (slurm-fake.py) holds the 70-node job a real two-node
# cluster cannot; no node accepts ssh (port 9), so each followed node is one warning.
. "$(dirname "$0")/lib.sh"
python3 "$(dirname "$0")/slurm-fake.py" "$TMP/port" 'f[1-70]' &
FAKE_PID=$!
CLEANUP_HOOKS+=("kill $FAKE_PID 2>/dev/null; wait $FAKE_PID 2>/dev/null")
wait_until 100 '[ -s "$TMP/port" ]' || fail "the look-alike did not start"
export GPURENT_SLURM_URL="http://127.0.0.1:$(cat "$TMP/port")" SLURM_JWT=test-token
expect_ok g config set providers slurm
expect_ok g config set slurm.ssh_host '%n'
expect_ok g config set slurm.ssh_port 9

expect_rc 10 g metrics slurm:5 --source ssh --follow --count 1 --interval 1
check "the first 64 nodes were tried, f65 on not: $ERR" \
	'[ "$(grep -c "^gpurent: f[0-9]*: " <<<"$ERR")" = 64 ] && [[ $ERR == *"gpurent: f64: "* ]] &&
	 [[ $ERR != *"f65"* ]]'
check "a warning says the rest are not followed: $ERR" \
	'[[ $ERR == *"slurm:5: only the first 64 of its nodes are followed"* ]]'
pass
