#!/usr/bin/env bash
# The JSON property test (issue 11): every JSON-producing command, fed hostile provider
# strings in every string field (newlines, backslashes, quotes, each control character
# 0x01-0x1f and 0x7f, invalid UTF-8, C1 controls, escape sequences, 10 kB), must print JSON
# that jq and cJSON both parse, with no raw control byte and no invalid UTF-8, and in which
# each value is what was sent less its control characters (the sanitizing rule).
# The provider is $JSON_HOSTILE serve, a vast.ai look-alike on 127.0.0.1; labels come in
# through the simulator as well.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000	# a market that holds still
H=${JSON_HOSTILE:?set JSON_HOSTILE to the json-hostile helper}
n=$("$H" count)

"$H" serve >"$TMP/serve.out" 2>"$TMP/serve.err" &
pid=$!
CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^listening on //p' "$TMP/serve.out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || fail "json-hostile serve did not start: $(cat "$TMP/serve.err")"
export GPURENT_VAST_URL=$url GPURENT_VAST_API_KEY=hostile-test-key

# json KIND MIN CMD...: run, then jq and the cJSON checker must both accept the output.
json() {
	local kind=$1 min=$2
	shift 2
	expect_ok g "$@"
	check "jq parses '$*'" 'jq -e . <<<"$OUT" >/dev/null'
	CHECKS=$((CHECKS + 1))
	report=$("$H" check "$kind" "$min" <<<"$OUT" 2>"$TMP/check.err") ||
		fail "'$*': $(cat "$TMP/check.err")"
}

json offers $((2 * n - 2)) -p vast offers -o json
json offers $((2 * n - 2)) -p vast offers -o json --fields id,gpu_name,location
json instances $((5 * n - 5)) -p vast ls -o json
ids=$(for ((k = 0; k < n; k++)); do echo "vast:$((2000 + k))"; done)
json instances $((5 * n - 5)) -p vast show $ids -o json
json instances 4 -p vast launch vast:1001 -o json --label plain
json any 0 -p vast metrics vast:2000 -o json
json any 0 -p vast metrics vast:2000 -o json --follow --count 2 --interval 1
json costs 0 -p vast costs -o json
json costs $((n - 2)) -p vast costs --by label -o json
json costs $((n - 2)) -p vast costs --by gpu -o json
json costs 0 -p vast costs --by instance -o json
json costs 0 -p vast costs --by provider -o json
json costs 0 -p vast costs --by day -o json
# vast refuses the account query with the next hostile message each time.
for ((k = 0; k < n; k++)); do
	json providers 0 -p vast providers -o json
done
check "providers round-trip the refusals" 'true'
json any 0 gpus -o json
json any 0 config list -o json
json any 0 login --list -o json
json any 0 sim status -o json

# The simulator's vast face keeps a launch's label and image as sent: launched with hostile
# ones, the sim's own instances carry them unsanitized to gpurent's output code.
"$GPURENT" sim serve --dialect vast --port 0 --api-key sim-key >"$TMP/sim.out" 2>"$TMP/sim.err" &
spid=$!
CLEANUP_HOOKS+=("kill $spid 2>/dev/null; wait $spid 2>/dev/null")
for ((i = 0; i < 100; i++)); do
	simurl=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$TMP/sim.out")
	[ -n "$simurl" ] && break
	sleep 0.1
done
[ -n "$simurl" ] || fail "sim serve did not start: $(cat "$TMP/sim.err")"
# The market moves with the clock: an offer may be gone by the time it is asked for, so
# each string tries the next offer (at most three times as many offers as strings).
asks=($(GPURENT_VAST_URL=$simurl GPURENT_VAST_API_KEY=sim-key g -p vast offers type=on-demand -o ids -n $((3 * n))))
k=0
for ask in "${asks[@]}"; do
	[ $k -lt $n ] || break
	"$H" body $k | curl -sf -X PUT -H "Authorization: Bearer sim-key" --data-binary @- \
	    "$simurl/api/v0/asks/${ask#vast:}/" >/dev/null && k=$((k + 1))
done
check "every hostile string launched ($k of $n)" '[ $k = $n ]'
json labelled $((2 * n - 2)) -p sim ls -o json
json labelled $((2 * n - 2)) -p sim show $(g -p sim ls -o ids) -o json
expect_ok g sim advance 5m
json costs $((n - 2)) -p sim costs --by label -o json
json any 0 -p sim ls -o json --fields label	# narrowed
# The other formats: not one control character reaches the terminal or the file.
for cmd in "ls -o table" "ls -o csv" "ls -o tsv" "costs --by label" "costs --by label -o csv"; do
	expect_ok g -p sim $cmd
	check "no control character in '$cmd'" '! tr -d "\t\n" <<<"$OUT" | LC_ALL=C grep -q "[[:cntrl:]]"'
done
kill $spid 2>/dev/null

# Labels: what a user may type (quotes, backslashes, 63 wide characters) comes back exactly.
for label in 'q"uo\te\\' '\\' '"' '\u0041\n' "$(printf '東%.0s' {1..63})" '{"a":1}'; do
	expect_ok launch_fresh type=on-demand -- --label "$label"
	id=$OUT
	expect_ok g show "$id" -o json
	check "label '$label' round-trips in show" '[ "$(jq -r .label <<<"$OUT")" = "$label" ]'
	expect_ok g ls -o json
	check "label '$label' round-trips in ls" 'jq -e --arg l "$label" "any(.[]; .label == \$l)" <<<"$OUT" >/dev/null'
	expect_ok g sim advance 5m
	expect_ok g costs --by label -o json
	check "label '$label' round-trips in costs" 'jq -e --arg l "$label" "any(.rows[]; .key == \$l)" <<<"$OUT" >/dev/null'
	"$H" check any 0 <<<"$OUT" >/dev/null 2>"$TMP/check.err" || fail "costs: $(cat "$TMP/check.err")"
	g destroy "$id" --yes >/dev/null 2>&1
done
pass
