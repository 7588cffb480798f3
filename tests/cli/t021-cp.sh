#!/usr/bin/env bash
# gpurent cp against a real sshd and real rsync on loopback: files with hostile names go up,
# come back down and move between two instances byte for byte; nothing in a name runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
command -v rsync >/dev/null || fail "rsync is not installed (scripts/install-deps)"
start_sshd

a=$(launch_fresh type=on-demand -- --wait --timeout 60)
b=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "two instances" '[[ $a == sim:i-* && $b == sim:i-* && $a != "$b" ]]'

# Every name a shell, ssh, rsync or tar could trip on.
names=(
	'plain.txt'
	'with space.txt'
	"it's \"quoted\".txt"
	'$(touch PWNED).txt'
	'`touch PWNED`;rm -rf x|y&z>w<v'
	'-leading-dash'
	'--rsh=touch PWNED'
	$'new\nline'
	'ünïcödé ✓ 日本.txt'
	'*glob?[a]'
	'back\slash'
)
src=$TMP/src
mkdir -p "$src/sub dir/-deeper"
for n in "${names[@]}"; do
	head -c $((RANDOM * 3 + 1)) /dev/urandom >"$src/$n"
	head -c 1000 /dev/urandom >"$src/sub dir/-deeper/$n"
done
chmod 751 "$src/plain.txt"
touch -d '2001-02-03 04:05:06' "$src/with space.txt"
remote=$TMP/remote
mkdir -p "$remote/up" "$remote/down" "$TMP/down"

# The checksums of a tree, by relative name (NUL-separated names survive newlines).
sums() {
	(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# True when each NAME is in both DIR1 and DIR2 with the same bytes.
same() {
	local d1=$1 d2=$2 n
	shift 2
	for n in "$@"; do
		cmp -s -- "$d1/$n" "$d2/$n" || return 1
	done
}
nasty=('$(touch PWNED).txt' '-leading-dash' '--rsh=touch PWNED' $'new\nline')

# Up: the nastiest one by one (relative, after --), then all of them in one copy.
cd "$src"
for n in "${nasty[@]}"; do
	expect_ok g cp -- "$n" "$a:$remote/up1/"
done
expect_ok g cp -- "${names[@]}" "$a:$remote/up/"
cd - >/dev/null
check "one by one, byte for byte" 'same "$src" "$remote/up1" "${nasty[@]}"'
check "each hostile name uploaded byte for byte" '[ "$(sums "$remote/up")" = "$(sums "$src" | grep -v "sub dir")" ]'
check "a name with \$(...) ran nothing here or there" '[ ! -e PWNED ] && [ ! -e "$HOME/PWNED" ] && [ ! -e /root/PWNED ] && [ ! -e "$src/PWNED" ]'
check "mode kept" '[ "$(stat -c %a "$remote/up/plain.txt")" = 751 ]'
check "mtime kept" '[ "$(stat -c %Y "$remote/up/with space.txt")" = "$(stat -c %Y "$src/with space.txt")" ]'

expect_rc 1 g cp "$src" "$a:$remote/norec"
check "a directory without -r is not copied" '[ ! -e "$remote/norec/sub dir" ]'
expect_ok g cp -r "$src/" "$a:$remote/tree"
check "a tree with -r, byte for byte" '[ "$(sums "$remote/tree")" = "$(sums "$src")" ]'

# Down: each name on its own, then the whole tree.
for n in "${nasty[@]}"; do
	expect_ok g cp "$a:$remote/tree/$n" "$TMP/down1/"
done
check "down one by one, byte for byte" 'same "$src" "$TMP/down1" "${nasty[@]}"'
expect_ok g cp "${names[@]/#/$a:$remote/tree/}" "$TMP/down/"
check "each hostile name downloaded byte for byte" '[ "$(sums "$TMP/down")" = "$(sums "$src" | grep -v "sub dir")" ]'
expect_ok g cp -r "$a:$remote/tree/sub dir/" "$TMP/down-tree"
check "a remote tree downloaded" '[ "$(sums "$TMP/down-tree")" = "$(cd "$src/sub dir" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)" ]'
expect_ok g cp -r --exclude '*.txt' "$a:$remote/tree/" "$TMP/excl"
check "--exclude leaves out what matches" '[ -e "$TMP/excl/-leading-dash" ] && [ -z "$(find "$TMP/excl" -name "*.txt")" ]'

# Instance to instance, through this machine: a file to a new name, a file into a
# directory, a tree.
mkdir -p "$remote/b"
expect_ok g cp "$a:$remote/tree/\$(touch PWNED).txt" "$b:$remote/b/renamed 'x'"
check "a file streamed to a new name" 'cmp -s "$src/\$(touch PWNED).txt" "$remote/b/renamed '"'"'x'"'"'"'
expect_ok g cp "$a:$remote/tree/"$'new\nline' "$b:$remote/b/"
check "a file streamed into a directory" 'cmp -s "$src/"$'"'"'new\nline'"'"' "$remote/b/"$'"'"'new\nline'"'"''
expect_rc 1 g cp "$a:$remote/tree" "$b:$remote/b/t2"
check "instance to instance: a directory needs -r" '[[ $ERR == *"use -r"* ]]'
expect_ok g cp -r "$a:$remote/tree/" "$b:$remote/b/t2"
expect_ok g cp -r "$a:$remote/tree/sub dir" "$b:$remote/b/t3"
check "a directory without a slash goes inside a new one, as rsync does" '[ -d "$remote/b/t3/sub dir/-deeper" ]'
check "a tree streamed between instances" '[ "$(sums "$remote/b/t2")" = "$(sums "$src")" ]'
check "modes kept between instances" '[ "$(stat -c %a "$remote/b/t2/plain.txt")" = 751 ]'
check "still nothing ran" '[ -z "$(find "$TMP" / -maxdepth 1 -name PWNED 2>/dev/null)" ] && [ ! -e /root/PWNED ]'

# An instance without rsync (here: rsync configured where there is none): scp over SFTP,
# still byte for byte, still running nothing; --resume and --exclude say they need rsync.
g config set ssh.rsync_path /nonexistent/rsync >/dev/null
mkdir -p "$remote/scp"
cd "$src"
expect_ok g cp -- "${nasty[@]}" "$a:$remote/scp/"
cd - >/dev/null
check "no rsync: scp is said" '[[ $ERR == *"has no rsync; copying with scp"* ]]'
check "no rsync: the nasty names byte for byte" 'same "$src" "$remote/scp" "${nasty[@]}"'
check "mode and time kept by scp" '[ "$(stat -c %Y "$remote/scp/-leading-dash")" = "$(stat -c %Y "$src/-leading-dash")" ]'
mkdir "$TMP/scp-down"
expect_ok g cp -r "$a:$remote/tree/sub dir" "$TMP/scp-down"
check "no rsync: a tree down" 'same "$src/sub dir/-deeper" "$TMP/scp-down/sub dir/-deeper" "${nasty[@]}"'
expect_rc 1 g cp --resume "$src/plain.txt" "$a:$remote/scp/"
check "--resume needs rsync there" '[[ $ERR == *"need it there"* ]]'
g config unset ssh.rsync_path >/dev/null
check "still nothing ran" '[ ! -e /root/PWNED ] && [ ! -e "$src/PWNED" ] && [ ! -e PWNED ]'

expect_rc 2 g cp "$src/plain.txt" "$TMP/elsewhere"
check "local to local is a usage error" '[[ $ERR == *"is on an instance"* ]]'
expect_ok g stop "$b" --wait --timeout 60
expect_rc 1 g cp "$src/plain.txt" "$b:$remote/"
check "a stopped instance is named as such" '[[ $ERR == *stopped* ]]'
pass
