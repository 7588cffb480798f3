#!/bin/bash
# A group's floor that the budget keeps refusing is told once, not every pass: the floor is
# not held by the cooldown, so the watcher tries it each pass, but the same refusal for the
# same reason is not said again (nor handed to notify.command); it is said again when the
# reason changes, and the scale-out is told when a launch goes through.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/watch.sh"

# notify.command: a script that appends each event's kind to a file.
cat >"$TMP/hear" <<'EOF'
#!/bin/sh
printf '%s\n' "$GPURENT_EVENT_KIND" >>"$HEARD"
EOF
chmod +x "$TMP/hear"
export HEARD=$TMP/heard
: >"$HEARD"
expect_ok g config set notify.command "$TMP/hear"

expect_ok g group create floor --gpu A100 --min 2 --max 3 --target-util 50 --cooldown 1h \
	--window 1h --env SIM_WORKLOAD=training
# A month's budget for about one member: the second of the floor is refused.
price=$(g -o json offers gpu=A100 gpus=1 type=on-demand | jq '[.[].price_hour] | min')
expect_ok g config set budget.month "$(awk "BEGIN { printf \"%.2f\", $price * 744 * 1.5 }")"

expect_ok g watch --once --interval 10m
check "the floor decided: $OUT" '[[ $OUT == *"group-out: group floor scales out by 2 (below-min"* ]]'
check "one launched, one refused: $OUT" \
	'[ "$(count_events group-launched)" = 1 ] && [ "$(count_events group-budget)" = 1 ]'
for pass in 1 2 3 4 5; do
	expect_ok g sim advance 10m
	expect_ok g watch --once --interval 10m
	check "pass $pass: the same refusal is not told again: $OUT" \
		'[[ $OUT != *group-out* && $OUT != *group-budget* ]]'
done
check "told once in all: group-out and group-budget" \
	'[ "$(count_events group-out)" = 1 ] && [ "$(count_events group-budget)" = 1 ]'
check "notify.command heard the scale-out once: $(tr '\n' ' ' <"$HEARD")" \
	'[ "$(grep -c "^group-out$" "$HEARD")" = 1 ]'
check "still one member" '[ "$(g -o json ls --group floor | jq length)" = 1 ]'

# The dry run says what it would do whatever was told before.
expect_ok g watch --once --dry-run --interval 10m
check "dry run still says the decision: $OUT" '[[ $OUT == *"would: action group-out: group floor scales out by 1 (below-min"* ]]'

# Room in the budget: the launch goes through, and the scale-out is told with it.
expect_ok g config set budget.month 100000
expect_ok g sim advance 10m
expect_ok g watch --once --interval 10m
check "told when it goes through: $OUT" \
	'[[ $OUT == *"group-out: group floor scales out by 1 (below-min"* ]] && [ "$(count_events group-launched)" = 2 ]'
check "two members" '[ "$(g -o json ls --group floor | jq length)" = 2 ]'

# Refused again after a launch went through: told afresh, then quiet again.
expect_ok g config set budget.month 0.01
victim=$(g -o ids ls --group floor | head -n 1)
expect_ok g destroy --yes "$victim"
expect_ok g sim advance 10m
expect_ok g watch --once --interval 10m
check "a new refusal is told: $OUT" '[ "$(count_events group-budget)" = 2 ]'
expect_ok g sim advance 10m
expect_ok g watch --once --interval 10m
check "and then not again: $OUT" '[ "$(count_events group-budget)" = 2 ]'
pass
