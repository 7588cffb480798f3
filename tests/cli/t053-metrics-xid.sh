#!/usr/bin/env bash
# Xid errors over ssh: the instance's kernel log read by the sampler (test doubles of dmesg
# and journalctl on the sshd "instance" replaying recorded real Xid lines), each Xid matched
# to its GPU by PCI bus: the last Xid and the count since the sampler began, in JSON, the
# table and the history, over one connection; a storm on another GPU hides nothing; Xids
# logged while the connection was down count once; journalctl where dmesg is refused; unknown
# (null), never 0, where neither answers; hostile lines; DCGM_FI_DEV_XID_ERRORS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_SPEED=200
start_sshd
KERNEL=$PROBE_DATA/kernel
BIN=$TMP/remote-bin

id=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
nvidia_double h100x8-pci.txt

# dmesg on the instance: the kernel log as the Qth sample of the Lth sampler loop sees it
# (L counts nvidia-smi --help-query-gpu, asked once per loop; Q the queries since), from
# kmsg.L.Q, else the latest file before it, so each sample of each loop sees its own log.
cat >"$BIN/dmesg" <<DOUBLE
#!/bin/sh
log='$BIN/nvidia-smi.log'
l=\$(grep -c -- --help-query-gpu "\$log" 2>/dev/null)
q=\$(awk '/--help-query-gpu/ { q = 0 } /^--query-gpu/ { q++ } END { print q + 0 }' "\$log" 2>/dev/null)
while [ "\${l:-0}" -gt 0 ]; do
	while [ "\$q" -gt 0 ]; do
		[ -f "$BIN/kmsg.\$l.\$q" ] && exec cat "$BIN/kmsg.\$l.\$q"
		q=\$((q - 1))
	done
	l=\$((l - 1))
	q=99
done
exit 0
DOUBLE
chmod +x "$BIN/dmesg"
# The chia-gigahorse log moved to GPU 2's bus (3a:00): the first loop sees only its Xid 31
# at its first sample, the 62 and eight 45s after it by the second, followed by a storm of
# 70 Xid 13s on GPU 5 (ab:00), more lines than a sample once carried for all GPUs
# together; by its third the kernel's buffer has let GPU 2's lines go, only the storm is
# left. A second loop (after a reconnection) sees at its start the log of the second sample
# and an Xid 48 on GPU 2 logged while the connection was down, and two more Xids by its
# second sample.
sed 's/0000:0a:00/0000:3a:00/' "$KERNEL/dmesg-chia-gigahorse-301.txt" >"$TMP/chia"
for ((i = 1; i <= 70; i++)); do
	printf '[14398.%06d] NVRM: Xid (PCI:0000:ab:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address\n' "$i"
done >"$TMP/storm"
head -n 2 "$TMP/chia" >"$BIN/kmsg.1.1"
cat "$TMP/chia" "$TMP/storm" >"$BIN/kmsg.1.2"
cp "$TMP/storm" "$BIN/kmsg.1.3"
{ cat "$BIN/kmsg.1.2"; echo "[14400.500000] NVRM: Xid (PCI:0000:3a:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error"; } >"$BIN/kmsg.2.1"
{ cat "$BIN/kmsg.2.1"; sed -n '3,4{s/^\[1437/[1447/;p}' "$TMP/chia"; } >"$BIN/kmsg.2.2"

conns0=$(sshd_connections)
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 3 -o json
check "three samples of 8 GPUs" 'jq -e -s "length == 24" <<<"$OUT" >/dev/null'
check "the bus ids" 'jq -e -s ".[2].pci_bus_id == \"00000000:3A:00.0\" and .[0].pci_bus_id == \"00000000:18:00.0\"" <<<"$OUT" >/dev/null'
check "first sample: GPU 2's Xid 31, none since the sampler began" \
	'jq -e -s ".[2] | .gpu == 2 and .xid == 31 and .xid_count == 0" <<<"$OUT" >/dev/null'
check "second sample: its last Xid 45, nine since the sampler began, the storm after them notwithstanding" \
	'jq -e -s ".[10] | .gpu == 2 and .xid == 45 and .xid_count == 9" <<<"$OUT" >/dev/null'
check "the storm on GPU 5: Xid 13, all 70 counted" \
	'jq -e -s ".[13] | .gpu == 5 and .xid == 13 and .xid_count == 70" <<<"$OUT" >/dev/null'
check "the other GPUs: 0, not null (the log was read and holds none of theirs)" \
	'jq -e -s "[.[] | select(.gpu != 2 and .gpu != 5)] | length == 18 and all(.xid == 0 and .xid_count == 0)" <<<"$OUT" >/dev/null'
check "third sample, GPU 2's lines gone from the log: its count and last Xid stay (9, 45)" \
	'jq -e -s ".[18] | .gpu == 2 and .xid == 45 and .xid_count == 9" <<<"$OUT" >/dev/null'
check "and GPU 5's storm still 70" 'jq -e -s ".[21] | .gpu == 5 and .xid_count == 70" <<<"$OUT" >/dev/null'
check "one connection for all three samples" '[ $(( $(sshd_connections) - conns0 )) = 1 ]'

# A connection killed mid-follow: the new loop on the instance counts from where the last
# frame received had counted to, so the Xid 48 logged while the connection was down counts,
# once, and the sampler adds what the loops before it counted: 9, 10, then two more, 12.
nvidia_double h100x8-pci.txt
close_masters
# Two seconds apart, so that the kill lands before the third sample on a loaded machine.
"$GPURENT" metrics "$id" --source ssh --follow --interval 2 --count 5 -o json >"$TMP/follow.json" 2>"$TMP/follow.err" &
follower=$!
CLEANUP_HOOKS+=("kill $follower 2>/dev/null")
for ((i = 0; i < 600; i++)); do
	[ "$(wc -l <"$TMP/follow.json")" -ge 16 ] && break
	sleep 0.1
done
check "two samples before the kill" '[ "$(wc -l <"$TMP/follow.json")" -ge 16 ]'
for p in $(pgrep -P "$SSHD_PID"); do kill "$p"; done
for ((i = 0; i < 300; i++)); do
	kill -0 "$follower" 2>/dev/null || break
	sleep 0.1
done
check "the follow ended by itself" '! kill -0 "$follower" 2>/dev/null'
wait "$follower"
OUT=$(cat "$TMP/follow.json")
check "a gap: the connection was re-established" 'jq -e -s "map(select(.gap)) | length == 1" <<<"$OUT" >/dev/null'
# The samples after the gap: the new loop's first (10: the Xid 48 logged while down, once)
# and its second (12); two or three before it, as the kill lands on a loaded machine.
after='. as $a | ($a | map(.gap != null) | index(true)) as $g | [$a[$g:][] | select(.gpu == GPU)]'
check "the count runs on over the reconnection, the Xid logged while down counted once: 10, then 12" \
	'jq -e -s "${after/GPU/2} | length >= 2 and .[0].xid == 48 and .[0].xid_count == 10 and .[-1].xid == 45 and .[-1].xid_count == 12" <<<"$OUT" >/dev/null'
check "GPU 5's storm counted once over the reconnection: 70" \
	'jq -e -s "${after/GPU/5} | length >= 2 and all(.xid == 13 and .xid_count == 70)" <<<"$OUT" >/dev/null'

expect_ok g metrics "$id" --source ssh --fields gpu,pci_bus_id,xid,xid_count
check "the table: bus, last Xid and count columns" \
	'[[ $(head -1 <<<"$OUT") == *"PCI BUS"*XID*XIDS* ]] && grep -q "^ *2  *00000000:3A:00.0  *45  *0$" <<<"$OUT"'

expect_ok g metrics "$id" --since 1d -o json
check "the history keeps the last Xid" \
	'jq -e "[.[] | select(.gpu == 2 and .xid == 45)] | length >= 1" <<<"$OUT" >/dev/null'

# The exporter: dcgm-exporter's DCGM_FI_DEV_XID_ERRORS is the last Xid's value.
start_exporter
wait_scrape '^DCGM_FI_DEV_XID_ERRORS\{gpu="2",'
check "DCGM_FI_DEV_XID_ERRORS: 45 on GPU 2, 13 on GPU 5, 0 on the others" \
	'grep -q "^DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",.*instance_id=\"$id\".*} 45$" <<<"$OUT" && grep -q "^DCGM_FI_DEV_XID_ERRORS{gpu=\"5\",.*} 13$" <<<"$OUT" && [ "$(grep -c "^DCGM_FI_DEV_XID_ERRORS{.*} 0$" <<<"$OUT")" = 6 ]'
check "promtool accepts it" promtool_metrics_ok
kill "$EXPORTER_PID"
wait "$EXPORTER_PID"

# dmesg refused (kernel.dmesg_restrict): the journal, for a user who may read it.
cat >"$BIN/dmesg" <<'DOUBLE'
#!/bin/sh
echo "dmesg: read kernel buffer failed: Operation not permitted" >&2
exit 1
DOUBLE
cat >"$BIN/journalctl" <<DOUBLE
#!/bin/sh
echo "\$*" >>'$BIN/journalctl.log'
cat '$KERNEL/journal-open-gpu-kernel-modules-1150.txt'
DOUBLE
chmod +x "$BIN/journalctl"
expect_ok g metrics "$id" --source ssh -o json
check "from the journal: GPU 6 (ba:00) last Xid 45" \
	'jq -e ".[6] | .pci_bus_id == \"00000000:BA:00.0\" and .xid == 45 and .xid_count == 0" <<<"$OUT" >/dev/null'
check "the journal's kernel messages with monotonic times" 'grep -q -- "-k .*-o short-monotonic" "$BIN/journalctl.log"'

# Neither answers (no journal access prints nothing): unknown, never 0.
printf '#!/bin/sh\nexit 0\n' >"$BIN/journalctl"
expect_ok g metrics "$id" --source ssh -o json
check "no readable kernel log: xid and xid_count null" \
	'jq -e "length == 8 and all(.[]; .xid == null and .xid_count == null)" <<<"$OUT" >/dev/null'

# Hostile lines: the good ones read, escape sequences never reach the terminal.
printf '#!/bin/sh\ncat "%s"\n' "$KERNEL/dmesg-hostile.txt" >"$BIN/dmesg"
expect_ok g metrics "$id" --source ssh -o json
check "hostile log: GPU 2's last good Xid, 94" 'jq -e ".[2].xid == 94 and .[0].xid == 0" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --source ssh --fields all
check "no escape sequence in the table" '! grep -q $'"'"'\x1b'"'"' <<<"$OUT"'

pass
