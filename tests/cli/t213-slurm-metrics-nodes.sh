#!/usr/bin/env bash
# `metrics` of a two-node Slurm job reads every node of its allocation, not only the first
# (issue 15 part 5): on a real cluster, each node reached over a real sshd through
# slurm.ssh_host's %n (n1 as 127.0.0.1, n2 as 127.0.0.2: a second sshd on the same port,
# and an nvidia-smi double that answers with each node's own recording). Each GPU says its
# node, in JSON and in the table; the history keeps the nodes apart; a node that does not
# answer is one unknown row and a warning, the other node's GPUs still come, and the
# watcher judges the job on every node: busy while one is, unobserved rather than idle
# while one does not answer.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
start_slurm
expect_ok g config set slurm.workdir "$TMP/slurm/jobs"
start_sshd
# n2's machine: the same sshd configuration, listening on 127.0.0.2.
sed -e 's/^ListenAddress .*/ListenAddress 127.0.0.2/' -e "s|^PidFile .*|PidFile $TMP/ssh/sshd2.pid|" \
	"$TMP/ssh/sshd_config" >"$TMP/ssh/sshd2_config"
"$(command -v sshd || echo /usr/sbin/sshd)" -D -e -f "$TMP/ssh/sshd2_config" 2>"$TMP/ssh/sshd2.log" &
SSHD2_PID=$!
CLEANUP_HOOKS+=("stop_sshd $SSHD2_PID")
for ((i = 0; i < 50; i++)); do
	(exec 3<>"/dev/tcp/127.0.0.2/$SSHD_PORT") 2>/dev/null && break
	sleep 0.1
done
printf 'Host gpu-n1\n\tHostName 127.0.0.1\nHost gpu-n2\n\tHostName 127.0.0.2\n' >"$TMP/ssh/nodes.conf"
expect_ok g config set ssh.config "$TMP/ssh/nodes.conf"
expect_ok g config set slurm.ssh_host 'gpu-%n'
expect_ok g config set slurm.ssh_port "$SSHD_PORT"
expect_ok g config set slurm.price.h100 2.50

# Each node's nvidia-smi: n1 busy (every GPU at 90 %), n2 at 40 %, told apart by the
# address the session came in on (sshd's SSH_CONNECTION: client, port, server, port).
for n in n1 n2; do
	mkdir -p "$TMP/node-$n"
	cp "$(dirname "$0")/nvidia-smi-double" "$TMP/node-$n/nvidia-smi"
done
awk -F', ' -v OFS=', ' '/^#/ { print; next } { $5 = 90; print }' \
	"$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/node-n1/rec.txt"
awk -F', ' -v OFS=', ' '/^#/ { print; next } { $5 = 40; print }' \
	"$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/node-n2/rec.txt"
echo "$TMP/node-n1/rec.txt" >"$TMP/node-n1/nvidia-smi.seq"
echo "$TMP/node-n2/rec.txt" >"$TMP/node-n2/nvidia-smi.seq"
cat >"$TMP/remote-bin/nvidia-smi" <<EOF
#!/bin/sh
set -- "\$@"
case " \$SSH_CONNECTION " in
*" 127.0.0.2 "*) exec '$TMP/node-n2/nvidia-smi' "\$@" ;;
esac
exec '$TMP/node-n1/nvidia-smi' "\$@"
EOF
chmod +x "$TMP/remote-bin/nvidia-smi"

expect_ok g launch slurm:gpu/h100 --count 4 --nodes 2 --label two-node --wait --timeout 60
J=$OUT
JID=${J#slurm:}
check "the job runs on both nodes" '[ "$(sl squeue -h -j "$JID" -o %T:%N)" = "RUNNING:n[1-2]" ]'

expect_ok g metrics "$J" -o json
check "sixteen GPUs, eight per node, each from its own node over ssh: $OUT" \
	'jq -e "length == 16 and all(.[]; .source == \"ssh\" and .instance_id == \"$J\") and
	 ([.[] | select(.node == \"n1\" and .util_pct == 90)] | length) == 8 and
	 ([.[] | select(.node == \"n2\" and .util_pct == 40)] | length) == 8" <<<"$OUT" >/dev/null'
check "each node's nvidia-smi answered" \
	'[ "$(cat "$TMP/node-n1/nvidia-smi.count")" -ge 1 ] && [ "$(cat "$TMP/node-n2/nvidia-smi.count")" -ge 1 ]'
expect_ok g metrics "$J"
check "the table names the node: $OUT" \
	'[[ $(head -1 <<<"$OUT") == *INSTANCE*NODE*GPU* ]] &&
	 [ "$(grep -c " n1 " <<<"$OUT")" = 8 ] && [ "$(grep -c " n2 " <<<"$OUT")" = 8 ]'
series=$(sqlite3 "$DB" \
	"SELECT instance_id, count(*) FROM sample_series GROUP BY instance_id ORDER BY 1" | tr '\n' ' ')
check "the history keeps each node's GPUs apart ($series)" \
	'[ "$series" = "$J/n1|8 $J/n2|8 " ]'
expect_ok g metrics "$J/n2" --since 1h -o json
check "a node's history is asked for as ID/NODE: $OUT" \
	'jq -e "([.[].gpu] | unique | length) == 8 and all(.[]; .instance_id == \"$J/n2\" and .util_pct == 40)" <<<"$OUT" >/dev/null'

# audit: the job is one instance with every node's GPUs, its utilisation between the two
# nodes' (n1 alone is 90 %, n2 alone 40 %), never idle.
# Three samples a second apart: the audit, run in the second of the last one, which its
# window leaves out, still has two before it (with two, a second boundary decided the test).
expect_ok g metrics "$J" --follow --count 3 --interval 1 -o json
expect_ok g audit -o json
check "audit sees both nodes: $OUT" \
	'jq -e ".rows | length == 1 and (.[0] | .key == \"$J\" and .util_mean_pct > 40 and
	 .util_mean_pct < 90 and .util_p95_pct == 90 and .idle_pct == 0)" <<<"$OUT" >/dev/null'
# --follow: one sampler per node, each sample saying its node.
expect_ok g metrics "$J" --follow --count 1 --interval 1 -o json
check "followed: eight samples of each node: $OUT" \
	'[ "$(jq -s "[.[] | select(.node == \"n1\" and .util_pct == 90)] | length" <<<"$OUT")" = 8 ] &&
	 [ "$(jq -s "[.[] | select(.node == \"n2\" and .util_pct == 40)] | length" <<<"$OUT")" = 8 ]'
expect_ok g metrics "$J" --follow --count 1 --interval 1
check "the followed table names the node: $OUT" \
	'[[ $(head -1 <<<"$OUT") == *INSTANCE*NODE*GPU* ]] &&
	 [ "$(grep -c " n1 " <<<"$OUT")" = 8 ] && [ "$(grep -c " n2 " <<<"$OUT")" = 8 ]'
series=$(sqlite3 "$DB" \
	"SELECT instance_id, count(*) FROM sample_series GROUP BY instance_id ORDER BY 1" | tr '\n' ' ')
check "followed, each node's GPUs still in a series of their own ($series)" \
	'[ "$series" = "$J/n1|8 $J/n2|8 " ]'

# The exporter samples the same way: each node's GPUs under its own Hostname.
start_exporter
wait_scrape 'DCGM_FI_DEV_GPU_UTIL\{[^}]*Hostname="n2"'
check "the exporter: eight series of each node, each with its node's figure" \
	'[ "$(grep -c "^DCGM_FI_DEV_GPU_UTIL{.*Hostname=\"n1\".*instance_id=\"$J\".*} 90$" <<<"$OUT")" = 8 ] &&
	 [ "$(grep -c "^DCGM_FI_DEV_GPU_UTIL{.*Hostname=\"n2\".*instance_id=\"$J\".*} 40$" <<<"$OUT")" = 8 ]'
kill "$EXPORTER_PID"
wait "$EXPORTER_PID" 2>/dev/null

# The watcher reads every node: n1 idle (the recording's 0-2 %), n2 at 40 %. Judged on n1
# alone the job would start an idle spell; on both it is busy.
echo "$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/node-n1/nvidia-smi.seq"
rm -f "$TMP/node-n1/nvidia-smi.count" "$TMP/node-n2/nvidia-smi.count"
expect_ok g config set idle.threshold 5
expect_ok g watch --once --interval 1m
state=$(sqlite3 "$DB" "SELECT util, idle_since FROM watch_state WHERE instance_id = '$J'")
check "n1 idle and n2 busy: the job is busy ($state): $OUT" \
	'[ "${state#*|}" = 0 ] && [ "${state%|*}" -ge 20 ] && [[ $OUT != *idle* && $OUT != *unobserved* ]]'
check "the watcher asked both nodes" \
	'[ "$(cat "$TMP/node-n1/nvidia-smi.count")" -ge 1 ] && [ "$(cat "$TMP/node-n2/nvidia-smi.count")" -ge 1 ]'
echo "$TMP/node-n1/rec.txt" >"$TMP/node-n1/nvidia-smi.seq"
# The watcher below meets the job afresh.
sqlite3 "$DB" "DELETE FROM watch_state WHERE instance_id = '$J'" || fail "sqlite3"

# n2 stops answering: its GPUs are unknown, n1's still come, a warning names n2.
stop_sshd "$SSHD2_PID"
expect_ok g metrics "$J" -o json
check "n1's eight GPUs and one unknown row for n2: $OUT" \
	'jq -e "length == 9 and ([.[] | select(.node == \"n1\" and .util_pct == 90)] | length) == 8 and
	 ([.[] | select(.node == \"n2\")] == [.[] | select(.node == \"n2\" and .gpu == null and
	   .util_pct == null and .memory_used_mib == null)]) and
	 ([.[] | select(.node == \"n2\")] | length) == 1" <<<"$OUT" >/dev/null'
check "a warning names the node that did not answer: $ERR" \
	'[[ $ERR == *"warning: $J: no sample from n2: "* ]]'

expect_rc 5 g verify "$J"
check "verify refuses a job whose node did not answer: $ERR" \
	'[[ $ERR == *"$J cannot be verified: no sample from n2: "* ]]'
expect_rc 10 g metrics "$J" --follow --count 1 --interval 1 -o json
check "followed with n2 down: n1's samples, a warning for n2, a partial result: $ERR" \
	'[ "$(jq -s "[.[] | select(.node == \"n1\")] | length" <<<"$OUT")" = 8 ] &&
	 [ "$(jq -s "[.[] | select(.node == \"n2\")] | length" <<<"$OUT")" = 0 ] &&
	 [[ $ERR == *"n2: "* ]]'

# The watcher: n1 idle, n2 unknown. The job is unobserved, never idle on half its nodes.
echo "$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/node-n1/nvidia-smi.seq"
rm -f "$TMP/node-n1/nvidia-smi.count"
expect_ok g config set idle.threshold 5
expect_ok g config set idle.after 30m
expect_ok g config set idle.action stop
expect_ok g watch --once --interval 1m
check "unobserved while n2 does not answer: $OUT" \
	'[[ $OUT == *"info unobserved $J: GPU utilisation unknown"* ]]'
check "n1 was asked" '[ "$(cat "$TMP/node-n1/nvidia-smi.count")" -ge 1 ]'
expect_ok g destroy --yes "$J"
pass
