# probes.sh - GPU tool test doubles on the sshd "instance": source after sshd.sh, after
# start_sshd (which puts $TMP/remote-bin first on the sessions' PATH).
#
#   nvidia_double REC...   nvidia-smi on the instance replays these recordings of
#                          tests/data/probes/nvidia/ (names or paths), one per sample, the last
#                          one repeated; resets its counter and log
#   nvidia_queries         how many samples the double has answered
#   sshd_connections       connections sshd accepted so far (its log, LogLevel VERBOSE)
PROBE_DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/probes" && pwd)

nvidia_double() {
	local r
	cp "$(dirname "${BASH_SOURCE[0]}")/nvidia-smi-double" "$TMP/remote-bin/nvidia-smi"
	chmod +x "$TMP/remote-bin/nvidia-smi"
	: >"$TMP/remote-bin/nvidia-smi.seq"
	for r in "$@"; do
		case $r in
		/*) echo "$r" ;;
		*) echo "$PROBE_DATA/nvidia/$r" ;;
		esac >>"$TMP/remote-bin/nvidia-smi.seq"
	done
	rm -f "$TMP/remote-bin/nvidia-smi.count" "$TMP/remote-bin/nvidia-smi.log"
}

nvidia_queries() {
	cat "$TMP/remote-bin/nvidia-smi.count" 2>/dev/null || echo 0
}

sshd_connections() {
	grep -c "Accepted publickey" "$TMP/ssh/sshd.log"
}
