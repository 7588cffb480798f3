#!/usr/bin/env bash
# logs of a managed job run with --retry-on-exit: an attempt whose command exits non-zero
# has its log pulled before its machine is put down (no checkpoint pull came before it), so
# `logs m1` prints it whole ahead of the next attempt's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=100
start_sshd
mkdir -p "$TMP/src"
printf '%s\n' 'echo "attempt $GPURENT_ATTEMPT says hello"' '[ "$GPURENT_ATTEMPT" != 1 ] || exit 3' \
	>"$TMP/src/job.sh"

expect_ok g run --managed --gpu h100 --count 1 --sync "$TMP/src" --checkpoint-dir ckpt \
	--every 1h --retry-on-exit -- sh job.sh
expect_ok g jobs show m1 -o json
first=$(jq -r '.[0].instance' <<<"$OUT")
second=$(jq -r '.[1].instance' <<<"$OUT")
check "attempt 1 ended by its exit, attempt 2 ran" \
	'jq -e "length == 2 and (.[0].why | test(\"exited 3\"))" <<<"$OUT" >/dev/null'
expect_ok g logs m1
check "both attempts' logs, attempt 1's pulled at its exit" \
	'[ "$OUT" = "attempt 1 says hello
attempt 2 says hello" ] && [ "$ERR" = "== attempt 1 on $first ==
== attempt 2 on $second ==" ]'
pass
