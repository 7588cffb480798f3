#!/usr/bin/env bash
# gpurent cp --resume: a 200 MB upload interrupted half way (Ctrl-C, as a user would) is
# finished by sending little more than the missing part, and the result is byte-exact.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
command -v rsync >/dev/null || fail "rsync is not installed (scripts/install-deps)"
start_sshd

id=$(launch_fresh type=on-demand -- --wait --timeout 60)
size=$((200 * 1024 * 1024))
head -c "$size" /dev/urandom >"$TMP/big.bin"
remote=$TMP/remote
mkdir -p "$remote"

# A rate limit makes "half way" a moment the test can catch on a busy machine.
"$GPURENT" cp --bwlimit 20M "$TMP/big.bin" "$id:$remote/" 2>"$TMP/first.err" &
cp_pid=$!
CLEANUP_HOOKS+=("kill $cp_pid 2>/dev/null; wait $cp_pid 2>/dev/null")
done_bytes=0
for ((i = 0; i < 600; i++)); do
	# rsync writes into a hidden temporary file next to the destination.
	done_bytes=$(find "$remote" -maxdepth 1 -name '.big.bin.*' -printf '%s\n' 2>/dev/null | head -1)
	[ "${done_bytes:-0}" -ge $((size / 2)) ] && break
	kill -0 "$cp_pid" 2>/dev/null || break
	sleep 0.1
done
check "the copy got half way while still running" '[ "${done_bytes:-0}" -ge $((size / 2)) ] && kill -0 $cp_pid'
kill -INT "$cp_pid"
wait "$cp_pid"
rc=$?
check "an interrupted copy exits 130 (got $rc: $(cat "$TMP/first.err"))" '[ $rc = 130 ]'
partial=$(stat -c %s "$remote/.gpurent-partial/big.bin" 2>/dev/null || echo 0)
check "the interrupted part is kept aside, not under the final name" \
	'[ "$partial" -ge $((size / 2)) ] && [ ! -e "$remote/big.bin" ]'
check "the first copy told how to finish it" 'grep -q -- --resume "$TMP/first.err"'

expect_ok g -v cp --resume "$TMP/big.bin" "$id:$remote/"
sent=$(printf '%s\n' "$ERR" | sed -n 's/^Total bytes sent: //p' | tr -d ,)
rest=$((size - partial))
check "resume sent less than the rest plus 10% (sent $sent, rest $rest)" \
	'[ -n "$sent" ] && [ "$sent" -lt $((rest + rest / 10)) ]'
check "the result is byte-exact" '[ "$(sha256sum <"$remote/big.bin")" = "$(sha256sum <"$TMP/big.bin")" ]'
check "nothing left aside" '[ ! -e "$remote/.gpurent-partial" ]'
pass
