#!/usr/bin/env bash
# Ctrl-C during `gpurent cp`, as a terminal sends it: SIGINT to the whole foreground process
# group (gpurent, rsync and its ssh alike). gpurent says the copy was interrupted and how to
# finish it, exits 130, and rsync's own complaints about the signal ("rsync error: ...") do
# not reach the user.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
command -v rsync >/dev/null || fail "rsync is not installed (scripts/install-deps)"
command -v setsid >/dev/null || fail "setsid is not installed (util-linux)"
start_sshd

id=$(launch_fresh type=on-demand -- --wait --timeout 60)
size=$((40 * 1024 * 1024))
head -c "$size" /dev/urandom >"$TMP/big.bin"
remote=$TMP/remote
mkdir -p "$remote"

# Its own process group, as a shell's foreground job is: -PID reaches all of it.
setsid "$GPURENT" cp --bwlimit 4M "$TMP/big.bin" "$id:$remote/" 2>"$TMP/cp.err" &
cp_pid=$!
CLEANUP_HOOKS+=("kill -- -$cp_pid 2>/dev/null; wait $cp_pid 2>/dev/null")
started() {
	[ "$(find "$remote" -maxdepth 1 -name '.big.bin.*' -printf '%s\n' 2>/dev/null | head -1)" \
		-gt 1048576 ] 2>/dev/null
}
wait_until 600 'started || ! kill -0 $cp_pid 2>/dev/null'
check "the copy is under way" 'started && kill -0 $cp_pid'
kill -INT -- "-$cp_pid"
wait "$cp_pid"
rc=$?
ERR=$(cat "$TMP/cp.err")
check "an interrupted copy exits 130 (got $rc)" '[ $rc = 130 ]'
check "gpurent says it was interrupted and how to finish it" \
	'grep -q "copy interrupted; run it again with --resume" <<<"$ERR"'
check "and nothing of rsync's or ssh's own about the signal" \
	'! grep -qi -e "rsync error" -e "rsync:" -e "killed by signal" -e "connection closed" <<<"$ERR"'
pass
