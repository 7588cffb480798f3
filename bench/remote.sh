#!/bin/bash
# Speed of the remote commands against a real sshd on loopback (issue 12, section 7).
#
#   bench/remote.sh [BUILD_DIR]        (default: build; RUNS=N, SIZE_MB=N, FILES=N)
#
# 1. `gpurent ssh ID -- true` with the master open, against a bare `ssh -o ControlPath=...
#    -- true` on the same master (the floor of a reused connection);
# 2. `gpurent cp` of one SIZE_MB file (default 1024) against plain rsync over ssh;
# 3. `gpurent cp -r` of FILES small files (default 10,000) against plain `rsync -r`.
# Each figure is the median of RUNS runs (default 5; 15 for ssh). Prints a Markdown table for
# bench/README.md. Timings are measured, never asserted.
set -eu

build=${1:-build}
GPURENT=$(cd "$build" && pwd)/gpurent
export GPURENT
runs=${RUNS:-5}
size_mb=${SIZE_MB:-1024}
nfiles=${FILES:-10000}
[ -x "$GPURENT" ] || { echo "bench/remote.sh: no binary at $GPURENT" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-bench.XXXXXX")
TEST_NAME=bench-remote
CLEANUP_HOOKS=()
fail() { echo "bench/remote.sh: $*" >&2; exit 1; }
cleanup() {
	local h
	for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h" || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
export GPURENT_HOME=$TMP/home GPURENT_SIM_SEED=1 GPURENT_SIM_SPEED=200 NO_COLOR=1
. "$(dirname "$0")/../tests/cli/sshd.sh"
start_sshd

id=$("$GPURENT" launch "$("$GPURENT" offers type=on-demand -o ids -n 1)" --wait --timeout 60)
# A gpurent still running holds the master open, as a dashboard or an exporter would: the
# commands measured share it (a master ends with its last gpurent).
"$GPURENT" ssh "$id" -- sh -c 'while [ ! -e "$1" ]; do sleep 0.1; done' sh "$TMP/gate" \
	>/dev/null 2>&1 &
holder=$!
# Ended before sshd: the command on the "instance" outlives its session otherwise.
CLEANUP_HOOKS=("touch $TMP/gate; wait $holder 2>/dev/null" "${CLEANUP_HOOKS[@]}")
for ((i = 0; i < 300; i++)); do
	sock=$(find "$GPURENT_HOME/cm" -type s 2>/dev/null | head -1)
	[ -n "$sock" ] && break
	sleep 0.1
done
[ -n "$sock" ] || fail "no master came up"
ssh_plain=(ssh -F /dev/null -p "$SSHD_PORT" -i "$TMP/ssh/user" -o IdentitiesOnly=yes
	-o UserKnownHostsFile="$GPURENT_HOME/known_hosts" -o BatchMode=yes)
dest=$(id -un)@127.0.0.1

# The median wall time in ms of running "$@" $n times (a setup command may run before each).
median() {
	local n=$1 setup=$2 i t0 t1
	shift 2
	local -a ts=()
	for ((i = 0; i < n; i++)); do
		eval "$setup"
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || fail "failed: $*"
		t1=$(date +%s%N)
		ts+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(((n + 1) / 2))p"
}

# paired N SETUP FLOOR-ARRAY GPURENT-ARRAY: run the floor and gpurent's command in turn, N
# times each (SETUP before every run), so that a load that drifts during the run weighs on
# both alike. Prints the floor's median ms, gpurent's median ms and the median of the N
# per-pair ratios (gpurent / floor).
paired() {
	local n=$1 setup=$2 i t0 t1 a b
	local -n floor_cmd=$3 gpurent_cmd=$4
	local -a as=() bs=() rs=()
	for ((i = 0; i < n; i++)); do
		eval "$setup"
		t0=$(date +%s%N)
		"${floor_cmd[@]}" >/dev/null 2>&1 || fail "failed: ${floor_cmd[*]}"
		t1=$(date +%s%N)
		a=$(((t1 - t0) / 1000000))
		eval "$setup"
		t0=$(date +%s%N)
		"${gpurent_cmd[@]}" >/dev/null 2>&1 || fail "failed: ${gpurent_cmd[*]}"
		t1=$(date +%s%N)
		b=$(((t1 - t0) / 1000000))
		as+=("$a") bs+=("$b") rs+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')")
	done
	echo "$(printf '%s\n' "${as[@]}" | sort -n | sed -n "$(((n + 1) / 2))p")" \
		"$(printf '%s\n' "${bs[@]}" | sort -n | sed -n "$(((n + 1) / 2))p")" \
		"$(printf '%s\n' "${rs[@]}" | sort -g | sed -n "$(((n + 1) / 2))p")"
}

row() {
	awk -v a="$2" -v b="$3" -v what="$1" \
		'BEGIN { printf "| %s | %d ms | %d ms | %.2f |\n", what, a, b, b / a }'
}

echo "| measure | floor | gpurent | ratio |"
echo "|---|---:|---:|---:|"
a=$(median 15 : ssh -o ControlPath="$sock" x -- true)
b=$(median 15 : "$GPURENT" ssh "$id" -- true)
row "ssh ID -- true, master open (floor: bare ssh on the master)" "$a" "$b"

mkdir -p "$TMP/remote" "$TMP/small"
head -c $((size_mb * 1024 * 1024)) /dev/urandom >"$TMP/big"
a=$(median "$runs" 'rm -rf "$TMP/remote/big"' rsync -lpt -e "${ssh_plain[*]}" "$TMP/big" "$dest:$TMP/remote/big")
b=$(median "$runs" 'rm -rf "$TMP/remote/big"' "$GPURENT" cp "$TMP/big" "$id:$TMP/remote/big")
row "cp of one $size_mb MB file (floor: rsync -lpt over ssh)" "$a" "$b"
rm -f "$TMP/big" "$TMP/remote/big"

for ((i = 0; i < nfiles; i++)); do
	printf 'file %d\n' "$i" >"$TMP/small/f$i"
done
# Floor and gpurent in turn (paired), and the median of the pairs' ratios: this figure is
# mostly sshd and rsync work that a loaded machine stretches by 2x from one run to the next.
# shellcheck disable=SC2034
floor_small=(rsync -rlpt -e "${ssh_plain[*]}" "$TMP/small/" "$dest:$TMP/remote/small")
# shellcheck disable=SC2034
gpurent_small=("$GPURENT" cp -r "$TMP/small/" "$id:$TMP/remote/small")
read -r a b ratio < <(paired "$runs" 'rm -rf "$TMP/remote/small"' floor_small gpurent_small)
echo "| cp -r of $nfiles small files (floor: rsync -rlpt over ssh), runs paired | $a ms | $b ms | $ratio (median of the pairs' ratios) |"
# Where gpurent's part of that goes: starting and finding the instance (show), and the
# master's check before rsync starts.
a=$(median "$runs" : "$GPURENT" show "$id")
echo "| (gpurent's own part: \`show ID\`, start-up and finding the instance) | | $a ms | |"
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
