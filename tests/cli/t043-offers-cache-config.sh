#!/bin/bash
# Issue 17 part 4: a provider's cached offers are dropped when that provider's config
# changes (its keys in the config file, or its URL), and only that provider's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key k
use_provider vast k
expect_ok g --provider vast --provider sim -o ids offers gpus=1
check "both answers are kept" '[ "$(offer_cache_rows vast)" -eq 1 ] && [ "$(offer_cache_rows sim)" -eq 1 ]'
stop_serve
expect_ok g --provider vast -o ids offers gpus=1 --max-age 1h
check "vast answers from the cache while its config is unchanged" '[ -n "$OUT" ]'

# Another provider's key changes nothing for vast.
expect_ok g config set runpod.disk 40
expect_ok g --provider vast -o ids offers gpus=1 --max-age 1h

# vast's own key: its answers are gone, sim's stay.
expect_ok g config set vast.limit 50
expect_rc 5 g --provider vast -o ids offers gpus=1 --max-age 1h
check "vast's cached answers were dropped ($(offer_cache_rows vast))" '[ "$(offer_cache_rows vast)" -eq 0 ]'
expect_ok g --provider sim -o ids offers gpus=1 --max-age 1h
check "sim's answer stays ($(offer_cache_rows sim))" '[ "$(offer_cache_rows sim)" -eq 1 ]'

# The URL is part of the config too.
start_serve vast --api-key k
use_provider vast k
expect_ok g --provider vast -o ids offers gpus=1
check "kept again ($(offer_cache_rows vast))" '[ "$(offer_cache_rows vast)" -eq 1 ]'
stop_serve
export GPURENT_VAST_URL=http://127.0.0.1:9
expect_rc 5 g --provider vast -o ids offers gpus=1 --max-age 1h
check "another URL drops them ($(offer_cache_rows vast))" '[ "$(offer_cache_rows vast)" -eq 0 ]'
pass
