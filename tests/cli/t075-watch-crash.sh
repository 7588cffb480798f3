#!/bin/bash
# kill -9 mid-action: the watcher is killed right after its stop order was accepted (by the
# notify.command it runs for that order), before it could verify anything. The next
# watcher says the last one died, reports what it left in flight, and verifies it; it does
# not order the stop a second time. A watcher that ended cleanly leaves nothing to report.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

offer=$(ids_of 1)
inst=$(g launch "$offer" --env SIM_WORKLOAD=idle --label crashy) || fail "launch"
expect_ok g config set idle.after 10m
cat >"$TMP/killer.sh" <<'SH'
#!/bin/sh
# Kill the watcher that runs us, as a crash or an OOM killer would, at its first order.
[ "$GPURENT_EVENT_KIND" = stop-ordered ] && kill -9 "$PPID"
exit 0
SH
chmod +x "$TMP/killer.sh"
expect_ok g config set notify.command "$TMP/killer.sh"
expect_ok g sim advance 2m
expect_ok g watch --once --interval 5m
check "a clean end leaves nothing to resume" '[ "$(count_events resumed)" -eq 0 ] && [ "$(count_events watcher-died)" -eq 0 ]'
expect_ok g sim advance 10m
run g watch --once --interval 5m
check "killed by SIGKILL (status $RC)" '[ "$RC" -eq 137 ]'
check "the order had gone out" '[ "$(state_of "$inst")" = stopping ]'
check "the order is in the journal" '[ "$(count_events stop-ordered "$inst")" -eq 1 ]'

expect_ok g config unset notify.command
expect_ok g watch --once --interval 1m
check "the death is reported: $OUT" '[[ $OUT == *"warn watcher-died: the watcher of pid "*" ended without closing"* ]]'
check "what was in flight is reported: $OUT" \
	'[[ $OUT == *"info resumed $inst: stop by pid "*" (order 1, accepted) was in flight; verifying it"* ]]'
check "not ordered a second time" '[ "$(count_events stop-ordered "$inst")" -eq 1 ]'
expect_ok g sim advance 1m
expect_ok g watch --once --interval 1m
check "and verified: $OUT" '[[ $OUT == *"action stop-verified $inst"* ]]'
check "stopped" '[ "$(state_of "$inst")" = stopped ]'
expect_ok g watch --once --interval 1m
check "the next start reports nothing" '[ "$(count_events resumed)" -eq 1 ] && [ "$(count_events watcher-died)" -eq 1 ]'
pass
