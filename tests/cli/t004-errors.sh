#!/usr/bin/env bash
# Bad input gets a clear message and a documented exit status; nothing stored is lost.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=200

expect_rc 2 g offers 'gpu=nonsense'
check "unknown GPU explained" '[[ $ERR == *"unknown GPU"* ]]'
expect_rc 2 g offers 'price<=abc'
check "bad money explained" '[[ $ERR == *"expected dollars"* ]]'
expect_rc 2 g offers 'gpus~8'
check "bad operator lists the valid ones" '[[ $ERR == *"= != < <= > >="* ]]'
expect_rc 2 g offers 'region<eu'
check "ordering on text refused" '[[ $ERR == *"only = or !="* ]]'
expect_rc 2 g offers --sort speed
check "bad sort key lists keys" '[[ $ERR == *"gpu_price"* ]]'
expect_rc 2 g offers --fields id,nope
check "bad field lists fields" '[[ $ERR == *"price_hour"* ]]'

expect_rc 3 g show sim:i-999999
check "unknown id named" '[[ $ERR == *sim:i-999999* ]]'
expect_rc 2 g show not-an-id
expect_rc 3 g show nosuchprovider:123
expect_rc 7 g launch sim:o-999999 --dry-run
check "an offer not on the market says so" '[[ $ERR == *"not on the market"* ]]'
expect_rc 2 g launch
expect_rc 2 g launch sim:o-000001 --disk huge

# One good id and one bad: partial failure names the bad one.
id=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
expect_rc 10 g stop --no-wait "$id" sim:i-999999
check "partial failure names the failed id" '[[ $ERR == *sim:i-999999* && $ERR != *"$id:"* ]]'
check "the good id was stopped" '[[ $OUT == "$id" ]]'
expect_rc 3 g stop sim:i-999998 sim:i-999999

# A bid on an on-demand offer is refused rather than rented on demand.
# (launch_fresh takes another offer while the one it found has left the market: exit 7.)
expect_rc 2 launch_fresh type=on-demand -- --bid 0.10
check "bid on on-demand refused" '[[ $ERR == *interruptible* ]]'
expect_rc 2 launch_fresh type=interruptible -- --bid 0.001
check "bid below the market refused" '[[ $ERR == *"below the current price"* ]]'

# A malformed config is an error naming file and line; the world is still there after.
mkdir -p "$GPURENT_HOME"
printf 'providers = sim\nthis line is wrong\n' >"$GPURENT_HOME/config"
expect_rc 2 g ls
check "config error names file:line" '[[ $ERR == *config:2* ]]'
printf 'budget.month = lots\n' >"$GPURENT_HOME/config"
expect_rc 2 g ls
check "bad config value explained" '[[ $ERR == *budget.month* ]]'
rm "$GPURENT_HOME/config"
expect_ok g ls -o ids
check "instance survived the bad config" '[ "$OUT" = "$id" ]'

# An unwritable state directory is a clear error. Root may write anywhere, so as root the
# command runs as nobody (setpriv), from a copy in $TMP: the checkout may be where nobody
# cannot reach (/root is 700). Without a way to drop privileges this check is skipped, and
# the test says so at the end instead of passing.
unwritable_skipped=
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
as_user=()
unwritable_bin=$GPURENT
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null; then
		as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		chmod 711 "$TMP"
		mkdir -m 711 "$TMP/bin"
		unwritable_bin=$TMP/bin/gpurent
		cp "$GPURENT" "$unwritable_bin"
		chmod 755 "$unwritable_bin"
		"${as_user[@]}" test -x "$unwritable_bin" ||
			fail "nobody cannot run $unwritable_bin: a directory above $TMP shuts it out"
	else
		unwritable_skipped="running as root and setpriv is missing"
	fi
fi
if [ -z "$unwritable_skipped" ]; then
	expect_rc 1 "${as_user[@]+"${as_user[@]}"}" env GPURENT_HOME="$TMP/ro/sub" "$unwritable_bin" ls
	check "unwritable state dir named" '[[ $ERR == *"$TMP/ro/sub"* ]]'
fi
echo x >"$TMP/file"
expect_rc 1 env GPURENT_HOME="$TMP/file/home" "$GPURENT" ls
check "state dir error is clear" '[[ $ERR == *"cannot create directory"* || $ERR == *"Not a directory"* ]]'

# Writing to a full disk fails the command.
expect_rc 1 bash -c '"$GPURENT" offers -o json >/dev/full'
check "write failure reported" '[[ $ERR == *"write failure"* ]]'
# A closed pipe is not an error message, but never a silent success with half the output.
# The JSON is well over a pipe buffer (64 kB), so the reader is gone before the writer ends.
g offers -o json 2>"$TMP/pipe-stderr" | head -c 10 >/dev/null
pipe_rc=${PIPESTATUS[0]}
CHECKS=$((CHECKS + 1))
[ "$pipe_rc" -eq 1 ] || fail "offers into a closed pipe exited $pipe_rc, expected 1"
check "closed pipe prints no error" '[ ! -s "$TMP/pipe-stderr" ]'

if [ -n "$unwritable_skipped" ]; then
	echo "# SKIP unwritable state directory: $unwritable_skipped ($CHECKS other checks passed)"
	exit 77
fi
pass
