#!/usr/bin/env bash
# The exporter while one provider hangs: vast's address is a socket that accepts every
# connection and never answers (and http.timeout lets a request wait ten minutes), so its
# lane never gets an answer during this test. The other provider's lane keeps sampling: sim's instances get new
# samples round after round (counted in the history: a sequence, not a clock), every scrape
# is answered from the last snapshot with sim's series in it and vast marked down, and
# SIGTERM still ends the exporter with status 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/exporter.sh"

a=$(launch_fresh type=on-demand 'gpus=1' -- --label lane) || fail "launch"
expect_ok g sim advance 2m
expect_ok g config set http.timeout 10m
start_hanging_socket
export GPURENT_VAST_URL=http://127.0.0.1:$port GPURENT_VAST_API_KEY=k

start_exporter --provider sim --provider vast
# Rounds of sim's lane: distinct times of its samples in the history.
rounds() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT count(DISTINCT s.at) FROM samples s
		JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '$a'" 2>/dev/null || echo 0
}
for ((i = 0; i < 600; i++)); do
	[ "$(rounds)" -ge 3 ] && break
	sleep 0.1
done
check "sim's instance sampled in three rounds while vast hangs" '[ "$(rounds)" -ge 3 ]'
check "vast's lane asked, and is still waiting (the socket never answers)" 'grep -q "^accepted$" "$TMP/hang.out"'
scrape
check "a scrape answers" '[ "$CODE" = 200 ]'
check "with sim's instance's GPU series" 'grep -q "^DCGM_FI_DEV_GPU_UTIL{.*instance_id=\"$a\",provider=\"sim\"" <<<"$OUT"'
check "sim up, vast down (no listing came back)" \
	'grep -q "^gpurent_provider_up{provider=\"sim\"} 1$" <<<"$OUT" && grep -q "^gpurent_provider_up{provider=\"vast\"} 0$" <<<"$OUT"'
check "promtool accepts it" promtool_metrics_ok
# Fresh by sequence: a later snapshot serves a newer sample than the one scraped now.
newest() { sed -n "s/^gpurent_sample_age_seconds{instance_id=\"$a\".*} //p" <<<"$OUT"; }
at_db() {
	sqlite3 -cmd ".timeout 10000" "$DB" "SELECT max(s.at) FROM samples s
		JOIN sample_series ss ON ss.id = s.series WHERE ss.instance_id = '$a'"
}
first=$(at_db)
for ((i = 0; i < 600; i++)); do
	[ "$(at_db)" -gt "$first" ] && break
	sleep 0.1
done
check "a newer sample of sim's instance after that scrape" '[ "$(at_db)" -gt "$first" ]'
check "the age series is there" '[ -n "$(newest)" ]'

kill "$EXPORTER_PID"
wait "$EXPORTER_PID"
rc=$?
check "SIGTERM ends it with status 0, vast's lane still hanging ($rc)" '[ "$rc" = 0 ]'
pass
