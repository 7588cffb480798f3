#!/bin/bash
# gpurent events: the journal in every output format, --since on the provider's clock,
# --level, and --follow printing new events as another process writes them. The watcher's
# config keys are checked when set, label keys included.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

expect_ok g events
check "an empty journal: a header only" '[ "$(wc -l <<<"$OUT")" -eq 1 ] && [[ $OUT == TIME* ]]'
expect_ok g -o json events
check "an empty JSON array" '[ "$(jq length <<<"$OUT")" -eq 0 ]'

# Config keys.
expect_rc 2 g config set idle.action reboot
check "idle.action is stop, destroy or notify: $ERR" '[[ $ERR == *"stop, destroy or notify"* ]]'
expect_rc 2 g config set idle.threshold 101
expect_rc 2 g config set idle.after soon
expect_rc 2 g config set label.x.idle.action explode
expect_rc 2 g config set label.x.colour blue
expect_rc 2 g config set label..idle.after 1h
expect_ok g config set 'label.train-*.idle.after' 2h
expect_ok g config get 'label.train-*.idle.after'
check "a label key reads back" '[ "$OUT" = 2h ]'
expect_ok g config set idle.after 10m
expect_ok g config set runtime.max 3h
expect_ok g config set runtime.action notify

mapfile -t offers < <(ids_of 2)
idle=$(g launch "${offers[0]}" --env SIM_WORKLOAD=idle --label idle-one) || fail "launch"
long=$(g launch "${offers[1]}" --env SIM_WORKLOAD=training --label train-long) || fail "launch"
expect_ok g sim advance 2m
expect_ok g watch --once --interval 5m

# Follow from another process while the watcher writes.
"$GPURENT" -o json events --follow >"$TMP/follow" 2>"$TMP/follow.err" &
follower=$!
CLEANUP_HOOKS+=("kill $follower 2>/dev/null; wait $follower 2>/dev/null")
expect_ok g sim advance 10m
expect_ok g watch --once --interval 5m
for ((i = 0; i < 100; i++)); do
	[ "$(grep -c stop-ordered "$TMP/follow")" -ge 1 ] && break
	sleep 0.1
done
check "--follow printed the new events as JSON lines: $(cat "$TMP/follow")" \
	'[ "$(jq -s "[.[] | .kind] | index(\"stop-ordered\") != null" "$TMP/follow")" = true ]'
check "one object per line" '[ "$(wc -l <"$TMP/follow")" -eq "$(jq -s length "$TMP/follow")" ]'

# Three hours later: the runtime policy, notify only, for the training instance only.
expect_ok g sim advance 3h
expect_ok g watch --once --interval 1m
check "runtime.max notify: $OUT" '[[ $OUT == *"warn runtime $long: running for 3h"*"(notify only)"* ]]'
expect_ok g watch --once --interval 1m
check "said once, not every pass: $OUT" '[[ $OUT != *runtime* ]]'
for ((i = 0; i < 100; i++)); do
	grep -q '"runtime"' "$TMP/follow" && break
	sleep 0.1
done
kill "$follower"
wait "$follower" 2>/dev/null
check "--follow saw each event once" \
	'[ "$(jq -s "[.[] | .seq] | length == (unique | length)" "$TMP/follow")" = true ]'

expect_ok g events
check "the table: header and columns" '[[ $OUT == *"TIME"*"LEVEL"*"EVENT"*"INSTANCE"*"MESSAGE"* && $OUT == *"stop-verified"* ]]'
expect_ok g -o csv events
check "CSV header" '[[ $(head -1 <<<"$OUT") == "seq,at,level,kind,policy,instance_id,label,util_pct,message" ]]'
expect_ok g -o json events --level warn
check "--level warn: warnings and alerts only" \
	'jq -e "length >= 1 and all(.[]; .level == \"warn\" or .level == \"alert\")" <<<"$OUT" >/dev/null'
# --since is counted back from now on the simulated clock: the last hour has the pass that
# verified the stop and warned of the runtime, not the order of three hours ago.
expect_ok g -o json events --since 1h
check "--since 1h: $(jq -c "[.[].kind]" <<<"$OUT")" '[ "$(jq -c "[.[].kind]" <<<"$OUT")" = "[\"stop-verified\",\"runtime\"]" ]'
expect_ok g -o json events --since 5h
check "--since 5h: all of them" '[ "$(jq length <<<"$OUT")" -eq "$(g -o json events | jq length)" ]'
# -o after the command name is the same option as before it.
expect_ok g events -o json --level warn
check "events -o json: JSON, not a table" 'jq -e "length >= 1" <<<"$OUT" >/dev/null'
expect_rc 2 g events --since yesterday
expect_rc 2 g events --level loud
expect_rc 2 g events extra
pass
