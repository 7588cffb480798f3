#!/bin/bash
# A stop that the provider acknowledges and ignores (sim serve --ignore-stop): the watcher
# re-reads the instance, orders the stop again within watch.verify_tries, then raises an
# alert (and runs notify.command for it; the alert in the watcher's language, here Chinese);
# it never reports the stop done. Against the vast dialect over HTTP, so the whole path is
# the real backend's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/watch.sh"
. "$(dirname "$0")/zh.sh"

# runtime.max counts from the instance's last start, which vast says as its uptime: the
# served world's clock moves two hours past the launch, so the instance has run for two.
GPURENT_SIM_TIME=$(($(date +%s) - 3 * 3600)) start_serve vast --api-key k --ignore-stop 3
use_provider vast k
expect_ok g config set providers vast
expect_ok g config set runtime.max 1h
cat >"$TMP/notify.sh" <<'SH'
#!/bin/sh
echo "$GPURENT_EVENT_LEVEL $GPURENT_EVENT_KIND $GPURENT_EVENT_INSTANCE" >>"$NOTIFY_LOG"
SH
chmod +x "$TMP/notify.sh"
export NOTIFY_LOG="$TMP/notified"
expect_ok g config set notify.command "$TMP/notify.sh"

offer=$(g -o ids offers gpus=1 type=on-demand | head -1)
inst=$(g launch "$offer" --label long-run) || fail "launch"
expect_ok serve_g vast sim advance 2h
check "running" '[ "$(state_of "$inst")" = running ]'

expect_ok g watch --once --interval 1m
check "order 1 for the runtime policy: $OUT" \
	'[[ $OUT == *"info runtime $inst: running for"*"(runtime.max 1h00m00s)"* && $OUT == *"stop-ordered $inst: order 1 of 3"* ]]'
expect_ok g watch --once --interval 1m
check "still running: ordered again: $OUT" \
	'[[ $OUT == *"stop-retry $inst: still running"*"after order 1; ordering again"* && $OUT == *"order 2 of 3"* ]]'
expect_ok g watch --once --interval 1m
check "order 3: $OUT" '[[ $OUT == *"order 3 of 3"* ]]'
# The alert in the watcher's language: a renter in Chinese reads that it may still bill.
expect_ok zh watch --once --interval 1m
check "then an alert, in Chinese: $OUT" \
	'[[ $OUT == *"alert stop-unverified $inst: 3 次指令后 "*" 仍为 running；它可能仍在计费：请到平台上检查"* ]]'
expect_ok g watch --once --interval 1m
check "no fourth order and no second alert: $OUT" '[[ $OUT != *ordered* && $OUT != *alert* ]]'
check "never reported done" '[ "$(count_events stop-verified)" -eq 0 ]'
check "the provider still runs it (the fault ate three stops)" '[ "$(state_of "$inst")" = running ]'
check "three orders in the journal" '[ "$(count_events stop-ordered "$inst")" -eq 3 ]'
check "notify.command got the orders and the alert" \
	'[ "$(grep -c "action stop-ordered $inst" "$NOTIFY_LOG")" -eq 3 ] && grep -qx "alert stop-unverified $inst" "$NOTIFY_LOG"'

# The provider stops it after all (a stop by hand, the fault used up): the alert's
# instance is verified by the next pass.
expect_ok g stop "$inst" --no-wait
expect_ok serve_g vast sim advance 1m
expect_ok g watch --once --interval 1m
check "verified once the provider reports it stopped: $OUT" '[[ $OUT == *"stop-verified $inst"* ]]'
pass
