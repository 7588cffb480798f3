#!/bin/bash
# The ledger keeps each provider on its own clock: `sim advance` moves the simulator's rows
# only, vast (here pointed at `gpurent sim serve`) follows the wall clock, the totals of a
# provider do not depend on -p, and an instance vast no longer lists stops costing, marked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key test-key-vast
use_provider vast test-key-vast
expect_ok g config set providers sim,vast

# A line of `costs --by GROUP -o json` as "spent burn_hour", in micro-dollars.
line() {
	jq -r ".rows[] | select(.key == \"$1\") | \"\(.spent * 1000000 | round) \(.burn_hour * 1000000 | round)\"" <<<"$OUT"
}

expect_ok g -p vast offers type=on-demand -o ids -n 1
expect_ok g launch "$OUT" --label clocks
id=$OUT
check "a vast instance" '[[ $id == vast:* ]]'
expect_ok g -p sim offers type=on-demand -o ids -n 1
expect_ok g launch "$OUT" --label clocks-sim
sim_id=$OUT
check "and a simulated one" '[[ $sim_id == sim:i-* ]]'
# Ten minutes on both sides: the server's world (vast's) and the client's simulator.
expect_ok serve_g vast sim advance 10m
expect_ok g sim advance 10m
expect_ok g -p vast ls -o json
check "running" '[ "$(jq -r ".[] | select(.id == \"$id\") | .state" <<<"$OUT")" = running ]'
t1=$(date +%s)
expect_ok g costs --by provider -o json
read -r vast1 burn <<<"$(line vast)"
read -r sim1 simburn <<<"$(line sim)"
check "vast bills ($burn micro-dollars/h)" '[ "${burn:-0}" -gt 0 ]'
check "so does the simulator ($simburn)" '[ "${simburn:-0}" -gt 0 ]'

# One simulated hour: the simulator's rows bill an hour more, vast's only the seconds that passed.
expect_ok g sim advance 1h
expect_ok g costs --by provider -o json
t2=$(date +%s)
read -r vast2 _ <<<"$(line vast)"
read -r sim2 _ <<<"$(line sim)"
# At most the wall seconds around the two readings, plus their rounding to seconds.
most=$(((burn * (t2 - t1 + 2) + 3599) / 3600))
check "vast: $((vast2 - vast1)) micro-dollars more, at most $most (not an hour: $burn)" \
	'[ $((vast2 - vast1)) -le "$most" ]'
check "sim: at least an hour more ($((sim2 - sim1)) >= $simburn)" '[ $((sim2 - sim1)) -ge "$simburn" ]'

# The same ledger gives vast the same figures whichever providers -p names.
t1=$(date +%s)
expect_ok g costs --by provider -o json
read -r both _ <<<"$(line vast)"
expect_ok g -p vast costs --by provider -o json
read -r alone burn_alone <<<"$(line vast)"
t2=$(date +%s)
most=$(((burn * (t2 - t1 + 2) + 3599) / 3600))
check "vast with -p sim,vast ($both) and -p vast ($alone) agree to the seconds between" \
	'[ $((alone - both)) -ge 0 ] && [ $((alone - both)) -le "$most" ] && [ "$burn_alone" = "$burn" ]'

# Destroyed behind gpurent's back (through the simulator's side of the server's world), vast
# stops listing it; the client's simulated instance is destroyed through gpurent.
expect_ok serve_g vast -p sim ls -o ids
behind=$OUT
check "one simulated instance behind it" '[[ $behind == sim:i-* ]]'
expect_ok serve_g vast -p sim destroy --yes "$behind"
expect_ok serve_g vast sim advance 1m
expect_ok g -p sim destroy --yes "$sim_id"
expect_ok g sim advance 1m
expect_ok g -p sim costs --by instance -o json
check "until vast is asked, its row still bills" '[ "$(line "$id" | cut -d" " -f2)" = "$burn" ]'
sleep 1	# the listing must be asked for after the row began, to the second
expect_ok g -p vast ls -o ids
check "vast lists nothing" '[ -z "$OUT" ]'
expect_ok g costs --by instance -o json
check "marked gone" 'jq -e ".rows[] | select(.key == \"$id\") | .gone == true and .burn_hour == 0" <<<"$OUT" >/dev/null'
check "the simulator's own instance is not gone" 'jq -e ".rows[] | select(.key == \"$sim_id\") | .gone == false" <<<"$OUT" >/dev/null'
read -r gone1 _ <<<"$(line "$id")"
expect_ok g costs -o json
check "nothing burns" 'jq -e ".burn_hour == 0" <<<"$OUT" >/dev/null'
sleep 1
expect_ok g costs --by instance -o json
read -r gone2 _ <<<"$(line "$id")"
check "a gone instance's spend stands still ($gone1 = $gone2)" '[ "$gone1" = "$gone2" ]'
expect_ok g costs --by instance
check "the table says gone" 'grep -q "^$id .* true$" <<<"$OUT"'
pass
