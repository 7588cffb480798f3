#!/bin/bash
# Lambda backend end to end against `gpurent sim serve --dialect lambda`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve lambda --api-key test-key-lambda
use_provider lambda test-key-lambda

expect_ok g --provider lambda -o json offers gpus=1
check "lambda offers" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = lambda ]'
check "no note without -v (the result is the same)" '! grep -q "applied after" <<<"$ERR"'
expect_ok g --provider lambda -v -o json offers gpus=1
check "with -v a note: nothing pushed down" 'grep -q "applied after" <<<"$ERR"'
offer=$(jq -r '[.[] | select(.id | contains("@"))][0].id' <<<"$OUT")
check "type@region id" '[[ $offer == lambda:gpu_1x_*@* ]]'

expect_ok g launch "$offer" --label t303
id=$OUT
check "lambda id" '[[ $id =~ ^lambda:[0-9a-f]{32}$ ]]'
expect_ok g -o json show "$id"
check "created time recorded at launch" '[ "$(jq -r .created_at <<<"$OUT")" != null ]'
expect_ok serve_g lambda sim advance 10m
expect_ok g -o json show "$id"
check "running" '[ "$(jq -r .state <<<"$OUT")" = running ]'
# Lambda cannot stop: said clearly, nothing faked.
expect_rc 12 g stop "$id"
check "says why" 'grep -q "cannot stop" <<<"$ERR"'
expect_rc 12 g launch "$offer" --bid 1
check "never silently on demand" 'grep -q "interruptible" <<<"$ERR"'
expect_ok g destroy --yes "$id"
expect_ok g -o json show "$id"
check "terminating" '[ "$(jq -r .state <<<"$OUT")" = destroying ]'

expect_rc 3 g show lambda:0123456789abcdef0123456789abcdef
GPURENT_LAMBDA_API_KEY=wrong expect_rc 4 g --provider lambda ls
pass
