#!/usr/bin/env bash
# search -> launch -> wait -> ls -> metrics -> stop -> start -> destroy -> costs, in separate
# processes sharing one simulated world.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=200

expect_ok g offers gpu=h100 type=on-demand -o ids -n 1
offer=$OUT
check "found an offer" '[[ $offer == sim:o-* ]]'
# The market moves 200 times as fast as the wall: the offer searched may be gone by the
# launch, which launch_fresh searches again for.
OUT=$(launch_fresh gpu=h100 type=on-demand -- --dry-run -o json) || fail "launch --dry-run"
# JSON numbers are dollars as doubles: compare them in micro-dollars, as gpurent counts them.
check "dry run prices per hour and day" 'jq -e ".dry_run and ((.price_day * 1e6 | round) == (.price_hour * 24 * 1e6 | round))" <<<"$OUT" >/dev/null'
expect_ok g ls -o json
check "dry run rented nothing" '[ "$OUT" = "[]" ]'

id=$(launch_fresh gpu=h100 type=on-demand -- --label e2e --env FOO=bar --port 8888 --wait \
    --timeout 60 -o ids) || fail "launch"
check "launch prints only the id" '[[ $id =~ ^sim:i-[0-9]+$ ]]'
expect_ok g ls -o json
check "ls shows it running" '[ "$(jq -r ".[] | select(.id == \"$id\") | .state" <<<"$OUT")" = running ]'
check "label kept" '[ "$(jq -r ".[0].label" <<<"$OUT")" = e2e ]'
expect_ok g ls --label nope -o json
check "label filter" '[ "$OUT" = "[]" ]'
expect_ok g ls --state running -o ids
check "state filter" '[ "$OUT" = "$id" ]'
expect_ok g show "$id" -o json
check "show is one object" 'jq -e ".id == \"$id\" and (.offer_id | test(\"^sim:o-[0-9]+$\")) and .price_hour > 0" <<<"$OUT" >/dev/null'

expect_ok g metrics "$id" -o json
check "one sample per GPU" '[ "$(jq length <<<"$OUT")" -ge 1 ]'
check "metrics in range" 'jq -e "all(.[]; .util_pct >= 0 and .util_pct <= 100 and .memory_used_mib <= .memory_total_mib and .temp_c > 20 and .power_w <= .power_limit_w)" <<<"$OUT" >/dev/null'
check "sample keys carry units" 'jq -e "all(.[]; has(\"memory_used_mib\") and has(\"memory_total_mib\") and has(\"temp_c\") and has(\"power_w\"))" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id"
check "numeric headers carry units" '[[ $(head -1 <<<"$OUT") == *"MEM MiB"*"TEMP °C"*"POWER W"* ]]'
expect_ok g metrics "$id" --follow --interval 1 --count 3
check "follow prints one header" '[ "$(grep -c INSTANCE <<<"$OUT")" = 1 ] && [ "$(wc -l <<<"$OUT")" -ge 3 ]'
check "follow keeps the columns aligned" '[ "$(while IFS= read -r l; do echo ${#l}; done <<<"$OUT" | sort -u | wc -l)" = 1 ]'
expect_ok g metrics "$id" --follow --interval 1 --count 2 -o json
check "follow streams JSON lines" '[ "$(wc -l <<<"$OUT")" -ge 2 ] && jq -e ".gpu >= 0" <<<"$OUT" >/dev/null'

expect_ok g stop "$id" --wait --timeout 60
expect_ok g show "$id" -o json
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_rc 1 g metrics "$id"
check "no metrics while stopped" '[[ $ERR == *stopped* ]]'
expect_ok g start "$id" --wait --timeout 60
expect_ok g show "$id" -o json
check "running again" '[ "$(jq -r .state <<<"$OUT")" = running ]'

expect_rc 2 g destroy "$id" </dev/null
check "destroy refuses without --yes off a terminal" '[[ $ERR == *--yes* ]]'
expect_ok g destroy "$id" --yes --wait --timeout 60
expect_ok g ls -o json
check "destroyed instances leave ls" '[ "$OUT" = "[]" ]'

expect_ok g costs -o json
check "spend recorded" 'jq -e ".spent > 0 and .burn_hour == 0" <<<"$OUT" >/dev/null'
expect_ok g costs --by instance -o json
check "spend by instance" 'jq -e ".rows[0].key == \"$id\" and .rows[0].spent > 0" <<<"$OUT" >/dev/null'
expect_ok g costs --by label -o json
check "spend by label" 'jq -e ".rows[0].key == \"e2e\"" <<<"$OUT" >/dev/null'
pass
