#!/bin/bash
# t029: while the instance's ssh side hangs in the middle of reading the logs, the
# dashboard still answers keys (the logs are read by a worker, never while drawing).
# No timed threshold: each key's effect is checked while the read is still pending.
. "$(dirname "$0")/lib.sh"
TMP=$T GPURENT=$G
CLEANUP_HOOKS=()
. "$(dirname "$0")/../cli/sshd.sh"
trap 'rm -f "$T/hang"; for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h" || true; done
	tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
export GPURENT_SIM_SPEED=200
start_sshd

id=$("$G" launch "$("$G" offers type=on-demand -o ids -n 1)" --wait --timeout 60)
[[ $id == sim:i-* ]] || { fail "launch: $id"; finish; }
"$G" run "$id" -- 'echo line-before-the-hang' >/dev/null 2>&1 || fail "the job did not run"
# The instance's tail (the log reader uses it) hangs while $T/hang exists.
cat >"$TMP/remote-bin/tail" <<HANG
#!/bin/sh
i=0
while [ -e "$T/hang" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
exec /usr/bin/tail "\$@"
HANG
chmod +x "$TMP/remote-bin/tail"
: >"$T/hang"

start_dash 160 40
keys 2
wait_for "^  $id .*running" 100 || fail "instances: $(screen)"
keys Enter
wait_for "fetching their state and logs over ssh" 50 && ok "the pane opens at once, reading" ||
	fail "pane: $(screen)"
keys q
wait_gone "fetching their state" 20 && ok "q closes it while ssh hangs" || fail "q: $(screen)"
keys 4
wait_for "SPENT" 30 && ok "4 switches views" || fail "view 4: $(screen)"
keys '?'
wait_for "Keys" 20 && wait_for "forward the instance's Jupyter" 10 &&
	ok "? opens the help, which names u" || fail "help: $(screen)"
keys q
keys 2 Enter
wait_for "fetching their state and logs over ssh" 20 && ok "still reading" || fail "$(screen)"
[ -e "$T/hang" ] && ok "all of that while the read hung" || fail "the hang ended early"
rm -f "$T/hang"
wait_for "\| line-before-the-hang" 150 && ok "the log arrives when ssh answers" ||
	fail "after: $(screen)"
# SIGINT while a worker waits on ssh still ends the dashboard.
: >"$T/hang"
keys q Enter
wait_for "fetching their state and logs over ssh" 20 || fail "not reading again: $(screen)"
kill -INT "$(cat "$T/pid")"
wait_for 'DASH-EXIT-130' 50 && ok "SIGINT ends it while ssh hangs (130)" ||
	fail "sigint: $(screen)"
rm -f "$T/hang"
finish
