#!/bin/bash
# The watcher's samples are the record audit reads (issue 25): with `gpurent watch
# --interval 1` on the simulator's running clock stopping two idle instances, `gpurent
# audit` gives them an idle share above 80 % and the two busy ones below 30 %, all four with
# energy and CO2 from their power samples; an instance that ran, billed, while nothing
# sampled it has its idle share, waste, utilisation and energy unknown (null), never 0.
#
# The clock runs at its own speed (no GPURENT_SIM_SPEED): a watcher's sample is fresh for
# three intervals of its clock, and a faster simulated clock would put every pass of a
# one-second watcher past that, a gap in which no idle time accrues (t230).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"
unset GPURENT_SIM_TIME

mapfile -t offers < <(ids_of 5)
expect_ok g config set idle.after 30s
idle1=$(g launch "${offers[1]}" --env SIM_WORKLOAD=idle --label idle) || fail "launch"
idle2=$(g launch "${offers[2]}" --env SIM_WORKLOAD=idle --label idle) || fail "launch"
busy1=$(g launch "${offers[3]}" --env SIM_WORKLOAD=training --label busy) || fail "launch"
busy2=$(g launch "${offers[4]}" --env SIM_WORKLOAD=training --label busy) || fail "launch"
# The simulator boots these four in 50 to 80 seconds: 45 of them at once, the rest as the
# watcher samples every pass, so that no second of their billing goes unobserved.
expect_ok g sim advance 45
"$GPURENT" watch --interval 1 >"$TMP/w.out" 2>"$TMP/w.err" &
w=$!
CLEANUP_HOOKS+=("kill $w 2>/dev/null; wait $w 2>/dev/null")
wait_until 1500 '[ "$(state_of "$idle1")" = stopped ] && [ "$(state_of "$idle2")" = stopped ]' ||
	fail "the watcher did not stop the idle instances: $(cat "$TMP/w.out" "$TMP/w.err")"
for id in "$busy1" "$busy2"; do
	check "the watcher saw $id running" '[ "$(state_of "$id")" = running ]'
done
kill "$w"
wait "$w"
# Never observed: launched once no watcher runs, billed for its first seconds.
unseen=$(g launch "${offers[0]}" --env SIM_WORKLOAD=training --label unseen) || fail "launch"
expect_ok g sim advance 100
check "$unseen runs" '[ "$(state_of "$unseen")" = running ]'
check "the watcher stopped them for idleness: $(cat "$TMP/w.out")" \
	'[[ $(cat "$TMP/w.out") == *"stop-ordered $idle1"* ]] && [[ $(cat "$TMP/w.out") == *"stop-ordered $idle2"* ]]'

expect_ok g audit -o json
a=$OUT
row() { jq -e --arg k "$1" ".rows[] | select(.key == \$k) | $2" <<<"$a" >/dev/null; }
for id in "$idle1" "$idle2"; do
	check "$id: idle share above 80 %, with energy and CO2 ($(jq -c --arg k "$id" '.rows[] | select(.key == $k)' <<<"$a"))" \
		'row "$id" ".idle_pct > 80 and (.energy_kwh | type) == \"number\" and (.co2e_kg | type) == \"number\" and .energy_estimated == false"'
done
for id in "$busy1" "$busy2"; do
	check "$id: idle share below 30 %, with energy and CO2 ($(jq -c --arg k "$id" '.rows[] | select(.key == $k)' <<<"$a"))" \
		'row "$id" ".idle_pct < 30 and (.energy_kwh | type) == \"number\" and (.co2e_kg | type) == \"number\" and .energy_estimated == false"'
done
check "never observed: spend known, idle share, waste, utilisation and energy null" \
	'row "$unseen" ".spend > 0 and .idle_pct == null and .waste == null and .util_mean_pct == null and .energy_kwh == null and .co2e_kg == null"'

# A dry run writes nothing: it samples, and keeps none of it.
kept() { g metrics "$busy1" --since 1d -o json | jq length; }
before=$(kept)
expect_ok g watch --once --dry-run
check "a dry run's samples are not kept ($before, then $(kept))" '[ "$(kept)" = "$before" ]'
pass
