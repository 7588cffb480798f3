# probes.sh - GPU tool test doubles on the sshd "instance": source after sshd.sh, after
# start_sshd (which puts $TMP/remote-bin first on the sessions' PATH).
#
#   nvidia_double REC...   nvidia-smi on the instance replays these recordings of
#                          tests/data/probes/nvidia/ (names or paths), one per sample, the last
#                          one repeated; resets its counter and log
#   nvidia_queries         how many samples the double has answered
#   sshd_connections       connections sshd accepted so far (its log, LogLevel VERBOSE)
#   vendor_double TOOL [VAR=VALUE...]
#                          TOOL on the instance: the stand-in of tests/probes/bin/ (the one
#                          the vendor command tests run) replaying tests/data/probes/, with
#                          those settings of its variables (ROCM_SMI_FILE=amd/..., ...);
#                          each call counted in TOOL.count
#   vendor_calls TOOL      how many times TOOL was run on the instance
#   vendor_doubles_clear   no vendor tool on the instance any more (nvidia-smi included)
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

PROBE_BIN=$(cd "$(dirname "${BASH_SOURCE[0]}")/../probes/bin" && pwd)
PROBE_TOOLS="nvidia-smi rocm-smi amd-smi hy-smi npu-smi ixsmi mthreads-gmi cnmon mx-smi"

# sshd passes no environment to the session: the wrapper sets what the stand-in reads.
vendor_double() {
	local tool=$1 a w="$TMP/remote-bin/$1"
	shift
	[ -x "$PROBE_BIN/$tool" ] || fail "no stand-in for $tool in $PROBE_BIN"
	{
		echo '#!/bin/sh'
		echo "echo x >>'$w.count'"
		echo "PROBE_DATA='$PROBE_DATA'; export PROBE_DATA"
		for a in "$@"; do
			echo "${a%%=*}='${a#*=}'; export ${a%%=*}"
		done
		echo "exec '$PROBE_BIN/$tool' \"\$@\""
	} >"$w"
	chmod +x "$w"
	rm -f "$w.count"
}

vendor_calls() {
	wc -l <"$TMP/remote-bin/$1.count" 2>/dev/null || echo 0
}

vendor_doubles_clear() {
	local t
	for t in $PROBE_TOOLS; do
		rm -f "$TMP/remote-bin/$t"
	done
}
