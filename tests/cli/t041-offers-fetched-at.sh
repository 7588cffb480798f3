#!/bin/bash
# Issue 17 part 4: every offer carries fetched_at (RFC 3339 in JSON); the CLI asks the
# providers every time unless --max-age allows an answer kept in the state database, and a
# table from the cache ends with "prices as of HH:MM:SS (N s ago)" on stderr. Reading the
# cache syncs nothing to disk.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key k
use_provider vast k
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0	# under strace below

expect_ok g --provider vast offers gpus=1
check "a fresh table says nothing about cached prices" '! grep -q "prices as of" <<<"$ERR"'

t0=$(date -u +%s)
expect_ok g --provider vast -o json offers gpus=1
t1=$(date -u +%s)
json=$OUT
check "offers came back" '[ "$(jq length <<<"$json")" -gt 3 ]'
check "every offer has an RFC 3339 fetched_at" \
    '[ "$(jq "[.[].fetched_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\")] | all" <<<"$json")" = true ]'
at=$(jq '[.[].fetched_at | fromdateiso8601] | min' <<<"$json")
check "fetched_at is the time of the request ($t0 <= $at <= $t1)" \
    '[ "$at" -ge "$t0" ] && [ "$at" -le "$t1" ]'
ids=$(jq -r '.[].id' <<<"$json")
sleep 1.1

# With the provider gone, the CLI still asks it by default ...
stop_serve
expect_rc 5 g --provider vast offers gpus=1
# ... and --max-age answers from what it kept.
expect_ok g --provider vast offers gpus=1 --max-age 1h
check "the table ends with the age of its prices on stderr" \
    'grep -Eq "^prices as of [0-9]{2}:[0-9]{2}:[0-9]{2} \([0-9]+ s ago\)$" <<<"$ERR"'
hms=$(date -d "@$at" +%H:%M:%S)
check "as of the time the provider answered ($hms)" 'grep -q "prices as of $hms " <<<"$ERR"'
expect_ok g --provider vast -o json offers gpus=1 --max-age 1h
check "the cached answer is the same offers" '[ "$(jq -r ".[].id" <<<"$OUT")" = "$ids" ]'
check "with the time they were fetched" \
    '[ "$(jq "[.[].fetched_at | fromdateiso8601] | min" <<<"$OUT")" = "$at" ]'
check "JSON gets no stderr note" '[ -z "$ERR" ]'

# Answering from the cache syncs nothing.
strace -f -qq -e trace=fsync,fdatasync,sync,syncfs,sync_file_range -o "$TMP/strace" \
    "$GPURENT" --provider vast offers gpus=1 --max-age 1h >/dev/null 2>&1 ||
	fail "offers --max-age failed under strace"
s=$(grep -E 'sync' "$TMP/strace" | grep -v 'exited with' || true)
check "offers --max-age made no disk sync: $s" '[ -z "$s" ]'
pass
