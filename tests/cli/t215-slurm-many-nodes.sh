#!/usr/bin/env bash
# Slurm jobs a real two-node cluster (tests/slurm/cluster) cannot hold, from a slurmrestd
# look-alike (slurm-fake.py) with one running job, slurm:5, over 70 nodes:
# - more machines than gpurent follows at once (SESSION_NODES_MAX, 64): metrics --follow
#   follows the first 64 and says the rest are not followed, never silently (no node
#   accepts ssh there: port 9, each followed node one warning);
# - slurm.ssh_host without %n: every node is reached at the one host, so the job is that
#   one machine, sampled once (a real sshd, nvidia-smi asked once), its GPUs under no
#   node, and a warning says so, rather than one machine's GPUs once per node.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
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
	'[[ $ERR == *"warning: slurm:5: not followed: the nodes past the first 64 are left out"* ]]'

# One host for every node.
start_sshd
nvidia_double h100x8.txt
expect_ok g config set slurm.ssh_host 127.0.0.1
expect_ok g config set slurm.ssh_port "$SSHD_PORT"
expect_ok g metrics slurm:5 --source ssh -o json
check "one machine's eight GPUs, under no node: $OUT" \
	'jq -e "length == 8 and all(.[]; .instance_id == \"slurm:5\" and .node == null)" <<<"$OUT" >/dev/null'
check "sampled once: $(nvidia_queries)" '[ "$(nvidia_queries)" = 1 ]'
check "a warning says the nodes were taken as one machine: $ERR" \
	'[[ $ERR == *"warning: slurm:5: no sample from ...: its nodes are all reached at 127.0.0.1, so it was taken as one machine (slurm.ssh_host without %n?)"* ]]'
series=$(sqlite3 "$DB" "SELECT instance_id, count(*) FROM sample_series GROUP BY 1")
check "the history keeps one machine's GPUs, no node's ($series)" '[ "$series" = "slurm:5|8" ]'
expect_ok g metrics slurm:5 --source ssh --follow --count 1 --interval 1 -o json
check "followed: eight samples, under no node: $OUT" \
	'[ "$(jq -s "[.[] | select(.node == null)] | length" <<<"$OUT")" = 8 ]'
check "followed as one machine, said: $ERR" \
	'[[ $ERR == *"warning: slurm:5: not followed: its nodes are all reached at 127.0.0.1"* ]]'
pass
