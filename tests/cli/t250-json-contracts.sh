#!/usr/bin/env bash
# The JSON contracts scripts read: group ls gives member_ids as an array and env as an
# object; the history's samples have the live samples' keys and forms (clock_event_reasons
# in hexadecimal, memory_temp_c); costs --by puts its lines under "rows", as audit does;
# metrics --fields all keeps the GPU's name and UUID in a table narrower than every field.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200	# 2026-12-01T10:00:00Z

# group ls: arrays and objects, not comma-joined strings.
expect_ok g group create web --gpu A100 --max 2 --target-util 70 --env A=1 --env 'B=x,y=z'
expect_ok g group create bare --gpu A100 --max 2 --target-util 70
expect_ok g -o json group ls
check "no members: an empty array; no environment: an empty object: $OUT" \
	'jq -e ".[] | select(.name == \"bare\") | .member_ids == [] and .env == {}" <<<"$OUT" >/dev/null'
check "env is an object of each variable's value (a comma and = in a value kept): $OUT" \
	'jq -e ".[] | select(.name == \"web\") | .env == {A: \"1\", B: \"x,y=z\"}" <<<"$OUT" >/dev/null'
m1=$(g launch "$(g offers gpu=A100 -o ids -n 1)" --label group:web) || fail "launch 1"
m2=$(g launch "$(g offers gpu=A100 -o ids -n 1)" --label group:web) || fail "launch 2"
expect_ok g -o json group show web
check "member_ids: an array of the members' ids: $OUT" \
	'[ "$(jq -c ".[0].member_ids | sort" <<<"$OUT")" = "$(printf "%s\n" "$m1" "$m2" | sort | jq -R . | jq -sc .)" ]'
expect_ok g -o csv --fields name,member_ids,env group show web
check "csv joins them with commas: $OUT" \
	'[ "$(sed -n 2p <<<"$OUT" | sed "s/$m1/M/; s/$m2/M/")" = "web,\"M,M\",\"A=1,B=x,y=z\"" ]'

# History samples: the live schema. One sample, then the history's own copy of it made an
# ssh sample with a throttle reason and a memory temperature, as a probe would have stored.
expect_ok g sim advance 2m
expect_ok g metrics "$m1" -o json
live=$OUT
sqlite3 "$DB" "UPDATE samples SET source = 1, throttle = 4, temp_mem = 41, pstate = 0,
	compute_mode = 0, mig = 0;" || fail "sqlite3"
expect_ok g metrics "$m1" --since 1h -o json
hist=$OUT
check "every live key is a history key: $hist" \
	'[ "$(jq -c "[.[0] | keys[]] - $(jq -c ".[0] | keys" <<<"$hist")" <<<"$live")" = "[]" ]'
check "the history's other keys are its own: $hist" \
	'[ "$(jq -c "[.[0] | keys[]] - $(jq -c ".[0] | keys" <<<"$live") | sort" <<<"$hist")" = "$(jq -c . <<<"[\"memory_used_max_mib\",\"power_max_w\",\"samples\",\"step_s\",\"temp_max_c\",\"util_max_pct\",\"util_min_pct\"]")" ]'
check "clock_event_reasons in hexadecimal, memory_temp_c, pstate and mode as live: $hist" \
	'jq -e ".[0] | .clock_event_reasons == \"0x0000000000000004\" and .memory_temp_c == 41
	and .pstate == \"P0\" and .compute_mode == \"default\" and .mig == false and .source == \"ssh\"
	and .driver == null and .xid_count == null" <<<"$hist" >/dev/null'
expect_ok g metrics "$m1" --since 1h -o csv
check "csv: the live names, the old ones gone: $OUT" \
	'h=$(head -1 <<<"$OUT"); [[ ,$h, == *,memory_temp_c,* && ,$h, == *,clock_event_reasons,* && $h != *throttle_reasons* && $h != *temp_memory_c* ]]'
check "csv: the history's columns keep their places" \
	'[[ $(head -1 <<<"$OUT") == instance_id,gpu,time,step_s,samples,util_pct,util_min_pct,util_max_pct,memory_used_mib,memory_used_max_mib,memory_total_mib,temp_c,temp_max_c,power_w,power_max_w,source,* ]]'

# metrics --fields all on a terminal narrower than every field: name and uuid stay.
COLUMNS=200 expect_ok g metrics "$m1" --fields all
check "live --fields all at 200 columns names the GPU: $OUT" \
	'[[ $(head -1 <<<"$OUT") == *" NAME "*" UUID "* || $(head -1 <<<"$OUT") == *" NAME "*" UUID" ]]'
check "and fits: $OUT" '[ "$(awk "{ print length }" <<<"$OUT" | sort -n | tail -1)" -le 200 ]'
COLUMNS=200 expect_ok g metrics "$m1" --since 1h --fields all
check "history --fields all at 200 columns names the GPU: $OUT" \
	'[[ $(head -1 <<<"$OUT") == *" UUID "*" NAME "* || $(head -1 <<<"$OUT") == *" UUID "*" NAME" ]]'

# costs --by: "rows", as audit has them.
expect_ok g sim advance 1h
expect_ok g -o json costs --by label
check "costs --by puts its lines under rows: $OUT" \
	'jq -e "(has(\"groups\") | not) and (.rows | length == 1) and .rows[0].key == \"group:web\"" <<<"$OUT" >/dev/null'
expect_ok g -o json audit --since 2h
check "as audit does" 'jq -e ".rows | type == \"array\"" <<<"$OUT" >/dev/null'
pass
