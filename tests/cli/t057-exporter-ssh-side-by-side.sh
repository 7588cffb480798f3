#!/usr/bin/env bash
# The exporter's first round with machines whose ssh hangs (issue 13): the simulated
# instances' ssh address is a socket that accepts and never answers, so each attempt waits
# out auto's connect timeout. The lane tries them side by side, never more than eight at
# once, and falls back to the API for each; one after another, 12 such attempts would take
# a minute. Counted, not timed: a wrapper on PATH records how many ssh processes gpurent
# has running whenever it starts one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"
start_hanging_socket
export GPURENT_SIM_SSH_HOST=127.0.0.1 GPURENT_SIM_SSH_PORT=$port
for o in $(g offers type=on-demand -o ids -n 12); do
	g launch "$o" >/dev/null || fail "launch $o"
done
expect_ok g sim advance 2m
expect_ok g ls -o json
ids=$(jq -r '.[] | select(.state == "running") | .id' <<<"$OUT")
check "twelve running instances" '[ "$(wc -l <<<"$ids")" -eq 12 ]'

mkdir -p "$TMP/bin" "$TMP/live"
real_ssh=$(command -v ssh)
# gpurent ends an attempt that outlasts its limit with SIGTERM: the wrapper passes it on.
cat >"$TMP/bin/ssh" <<WRAP
#!/bin/sh
mkdir "$TMP/live/\$\$"
ls "$TMP/live" | wc -l >>"$TMP/running"
"$real_ssh" "\$@" &
child=\$!
trap 'kill \$child 2>/dev/null; wait \$child; rmdir "$TMP/live/\$\$"; exit 143' TERM
wait \$child
rc=\$?
rmdir "$TMP/live/\$\$"
exit \$rc
WRAP
chmod +x "$TMP/bin/ssh"
export PATH="$TMP/bin:$PATH"
sampled() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(DISTINCT ss.instance_id) FROM samples s
		JOIN sample_series ss ON ss.id = s.series" 2>/dev/null || echo 0
}

start_exporter --ssh-retry 1h
for ((i = 0; i < 1200; i++)); do
	[ "$(sampled)" -ge 12 ] && break
	sleep 0.1
done
check "every instance sampled from the API in the first round" '[ "$(sampled)" -ge 12 ]'
most=$(sort -n "$TMP/running" | tail -1)
check "the ssh attempts ran side by side ($most at once)" '[ "$most" -ge 2 ]'
check "never more than eight at once ($most)" '[ "$most" -le 8 ]'
check "each instance's ssh was tried (the socket accepted 12)" '[ "$(grep -c "^accepted$" "$TMP/hang.out")" -ge 12 ]'
wait_scrape '^gpurent_instance_up'
check "the first snapshot has every instance's utilisation" '[ "$(grep -c "^DCGM_FI_DEV_GPU_UTIL{" <<<"$OUT")" -ge 12 ]'
pass
