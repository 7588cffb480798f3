#!/bin/bash
# notify.command is an argv (split as the shell splits words, quotes kept, never run by a
# shell): it gets each action and alert in GPURENT_EVENT_* variables and as JSON on stdin.
# A hostile label arrives byte for byte and does nothing: no command in it runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

cd "$TMP" || fail "cd"
hostile='$(touch PWNED1);`touch PWNED2`;"x" '"'"'y'"'"' | touch PWNED3 #* ~ \n'
offer=$(ids_of 1)
inst=$(g launch "$offer" --env SIM_WORKLOAD=idle --label "$hostile") || fail "launch"
check "the label is kept as given" '[ "$(g -o json show "$inst" | jq -r .label)" = "$hostile" ]'

# A program in a directory with a space, and an argument with spaces and a quote.
mkdir -p "$TMP/my tools"
cat >"$TMP/my tools/notify" <<'SH'
#!/bin/sh
out="$NOTIFY_DIR/$GPURENT_EVENT_SEQ"
printf '%s\n' "$@" >"$out.argv"
printf '%s' "$GPURENT_EVENT_LABEL" >"$out.label"
env | grep '^GPURENT_EVENT_' | sort >"$out.env"
cat >"$out.json"
SH
chmod +x "$TMP/my tools/notify"
export NOTIFY_DIR="$TMP/notified"
mkdir -p "$NOTIFY_DIR"
expect_ok g config set notify.command "'$TMP/my tools/notify' --title \"gpurent: it's idle\" plain"
expect_ok g config set idle.after 10m
expect_ok g sim advance 2m
expect_ok g watch --once --interval 5m
expect_ok g sim advance 10m
expect_ok g watch --once --interval 5m
check "stop ordered: $OUT" '[[ $OUT == *"stop-ordered $inst"* ]]'
seq=$(g -o json events | jq -r '[.[] | select(.kind == "stop-ordered")][0].seq')
f="$NOTIFY_DIR/$seq"
check "notify.command ran for the order (seq $seq)" '[ -f "$f.json" ]'
check "its argv as written, quotes taken off" \
	'[ "$(cat "$f.argv")" = "$(printf "%s\n" --title "gpurent: it'"'"'s idle" plain)" ]'
check "the label in GPURENT_EVENT_LABEL, intact" '[ "$(cat "$f.label")" = "$hostile" ]'
check "the label in the JSON, intact" '[ "$(jq -r .label "$f.json")" = "$hostile" ]'
check "the JSON: kind, instance, level, policy, time" \
	'jq -e --arg i "$inst" ".kind == \"stop-ordered\" and .instance_id == \$i and .level == \"action\" and .policy == \"idle\" and (.at | test(\"^2026-01-01T10:12:00Z$\"))" "$f.json" >/dev/null'
check "the environment names the event" \
	'grep -qx "GPURENT_EVENT_KIND=stop-ordered" "$f.env" && grep -qx "GPURENT_EVENT_INSTANCE=$inst" "$f.env" && grep -qx "GPURENT_EVENT_LEVEL=action" "$f.env"'
check "observations are not notified (only actions and alerts)" \
	'[ "$(ls "$NOTIFY_DIR"/*.json | wc -l)" -eq 1 ]'
check "nothing in the label ran" '! ls "$TMP"/PWNED* "$NOTIFY_DIR"/PWNED* >/dev/null 2>&1'

# A program that fails, or is missing, is reported; the watcher goes on.
expect_ok g config set notify.command "$TMP/no-such-program"
expect_ok g sim advance 1m
expect_ok g watch --once --interval 1m
check "verified despite the missing program: $OUT" '[[ $OUT == *"stop-verified $inst"* ]]'
check "the failure said on stderr: $ERR" '[[ $ERR == *"no-such-program"* ]]'
# An unterminated quote is a config error, said before any pass.
expect_ok g config set notify.command "'unterminated"
expect_rc 2 g watch --once
pass
