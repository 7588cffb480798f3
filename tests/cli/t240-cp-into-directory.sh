#!/usr/bin/env bash
# gpurent cp to a destination ending in '/': a directory on every path (rsync, the scp
# fallback, the tar stream between instances), created when missing as rsync creates it, so a
# second copy into it adds a file instead of overwriting the first (issue 24 item 6). A
# destination whose directory is missing is refused in gpurent's words, not tar's or sh's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
command -v rsync >/dev/null || fail "rsync is not installed (scripts/install-deps)"
start_sshd

a=$(launch_fresh type=on-demand -- --wait --timeout 60)
b=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "two instances" '[[ $a == sim:i-* && $b == sim:i-* && $a != "$b" ]]'
remote=$TMP/remote
mkdir -p "$remote/a" "$remote/b"
echo one >"$remote/a/f1.pt"
echo two >"$remote/a/f2.pt"

# The README's own example, twice: both files end up inside the new directory.
expect_ok g cp "$a:$remote/a/f1.pt" "$b:$remote/b/ck3/"
expect_ok g cp "$a:$remote/a/f2.pt" "$b:$remote/b/ck3/"
check "instance to instance: 'ck3/' is made a directory" '[ -d "$remote/b/ck3" ]'
check "the first copy is still there" '[ "$(cat "$remote/b/ck3/f1.pt")" = one ]'
check "the second is beside it" '[ "$(cat "$remote/b/ck3/f2.pt")" = two ]'

# Several sources into a name that does not exist: a directory, as rsync makes it.
expect_ok g cp "$a:$remote/a/f1.pt" "$a:$remote/a/f2.pt" "$b:$remote/b/both"
check "several sources make a directory of a new name" \
	'[ "$(cat "$remote/b/both/f1.pt")" = one ] && [ "$(cat "$remote/b/both/f2.pt")" = two ]'

# Into a directory that is not there: gpurent says so; nothing of tar or sh gets through.
expect_rc 1 g cp "$a:$remote/a/f1.pt" "$b:$remote/b/ckpt2/a.txt"
check "a missing directory is named" '[[ $ERR == *"no directory '"'$remote/b/ckpt2'"' on $b"* ]]'
check "in gpurent's words only" '[[ $ERR != *tar* && $ERR != *"cd"* && $ERR != *"sh:"* ]]'
check "and nothing was made" '[ ! -e "$remote/b/ckpt2" ]'
expect_rc 1 g cp "$a:$remote/a/f1.pt" "$b:$remote/b/no/such/"
check "only the last directory is made, as rsync does" \
	'[[ $ERR == *"no directory '"'$remote/b/no'"' on $b"* && ! -e $remote/b/no ]]'
echo keep >"$remote/b/plain"
expect_rc 1 g cp "$a:$remote/a/f1.pt" "$b:$remote/b/plain/"
check "a file where a directory is wanted is named" '[[ $ERR == *"'"'$remote/b/plain'"' on $b is not a directory"* ]]'
check "and left alone" '[ "$(cat "$remote/b/plain")" = keep ]'

# rsync, both ways, as the model.
expect_ok g cp "$remote/a/f1.pt" "$a:$remote/b/up/"
check "up: 'up/' is a directory" '[ "$(cat "$remote/b/up/f1.pt")" = one ]'
expect_ok g cp "$a:$remote/a/f1.pt" "$TMP/down/"
check "down: 'down/' is a directory" '[ "$(cat "$TMP/down/f1.pt")" = one ]'

# No rsync on the instance: scp, which by itself would not make the directory.
g config set ssh.rsync_path /nonexistent/rsync >/dev/null
expect_ok g cp "$remote/a/f1.pt" "$a:$remote/b/scp-up/"
expect_ok g cp "$remote/a/f2.pt" "$a:$remote/b/scp-up/"
check "scp up: 'scp-up/' is a directory holding both" \
	'[ "$(cat "$remote/b/scp-up/f1.pt")" = one ] && [ "$(cat "$remote/b/scp-up/f2.pt")" = two ]'
expect_ok g cp "$a:$remote/a/f1.pt" "$TMP/scp-down/"
expect_ok g cp "$a:$remote/a/f2.pt" "$TMP/scp-down/"
check "scp down: 'scp-down/' is a directory holding both" \
	'[ "$(cat "$TMP/scp-down/f1.pt")" = one ] && [ "$(cat "$TMP/scp-down/f2.pt")" = two ]'
pass
