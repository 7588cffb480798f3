#!/bin/bash
# Issue 17 part 4: --max-age is an upper bound on the age of the prices, the cache answers
# only the same filter it was asked, and it keeps a bounded number of answers per provider.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

expect_rc 2 g offers --max-age soon
check "a bad duration is named" 'grep -q "soon" <<<"$ERR"'

start_serve vast --api-key k
use_provider vast k
# Six different filters, asked in this order: the cache keeps the last four.
for n in 1 2 4 8 3 6; do
	expect_ok g --provider vast -o ids offers gpus=$n
	echo "$OUT" >"$TMP/ids-$n"
	sleep 1.1	# distinct fetch times, so "the oldest" is well defined
done
rows=$(offer_cache_rows vast)
check "at most 4 answers are kept for a provider ($rows)" '[ "$rows" -eq 4 ]'
stop_serve

for n in 4 8 3 6; do
	expect_ok g --provider vast -o ids offers gpus=$n --max-age 1h
	check "gpus=$n is answered from the cache" '[ "$OUT" = "$(cat "$TMP/ids-$n")" ]'
done
for n in 1 2; do
	expect_rc 5 g --provider vast -o ids offers gpus=$n --max-age 1h
done
check "the oldest answers were dropped" true
expect_rc 5 g --provider vast -o ids offers gpus=5 --max-age 1h
check "another filter is never answered from a kept answer" true
# Too old: the provider is asked (and is gone).
expect_rc 5 g --provider vast -o ids offers gpus=6 --max-age 1s
expect_ok g --provider vast -o ids offers gpus=6 --max-age 2m
pass
