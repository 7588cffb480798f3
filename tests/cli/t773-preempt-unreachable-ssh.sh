#!/usr/bin/env bash
# sim preempt --reason unreachable against a real sshd: the instance's ssh stops answering
# (its port refuses) while its provider still runs it; the other instance, on the same sshd,
# answers on.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

. "$(dirname "$0")/sshd.sh"
start_sshd
expect_ok g offers type=on-demand -o json
od=$(jq -r '[.[] | select(.available >= 2)][0].id' <<<"$OUT")
expect_ok g launch "$od"
a=$OUT
expect_ok g launch "$od"
b=$OUT
expect_ok g sim advance 5m
expect_ok g ssh "$a" -- echo answered
check "the instance answers over ssh first" '[ "$OUT" = answered ]'

expect_ok g sim preempt "$a" --reason unreachable
check "its provider still runs it" '[ "$(g show "$a" -o json | jq -r .state)" = running ]'
expect_rc 255 g ssh "$a" -- echo answered
check "its ssh is refused ($ERR)" '[[ $ERR == *refused* ]]'
expect_ok g ssh "$b" -- echo answered
check "the other instance answers on" '[ "$OUT" = answered ]'
pass
