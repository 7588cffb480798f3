#!/usr/bin/env bash
# config get/set/unset/list, validation, profiles, comments kept across set.
. "$(dirname "$0")/lib.sh"

expect_ok g config get offers.sort
check "default value" '[ "$OUT" = price ]'
expect_rc 3 g config get budget.month
expect_rc 2 g config get no.such.key
expect_ok g config set budget.month 250
expect_ok g config get budget.month
check "set then get" '[ "$OUT" = 250 ]'
expect_rc 2 g config set budget.month lots
check "value checked" '[[ $ERR == *budget.month* ]]'
expect_rc 2 g config set offers.filter 'gpu=nonsense'
check "filter checked at set time" '[[ $ERR == *"unknown GPU"* ]]'
expect_ok g config get budget.month
check "failed set left the old value" '[ "$OUT" = 250 ]'

sed -i '1i # my notes' "$GPURENT_HOME/config"
expect_ok g config set offers.sort gpu_price
check "comments kept" 'grep -q "^# my notes" "$GPURENT_HOME/config"'
check "config file mode 600" '[ "$(stat -c %a "$GPURENT_HOME/config")" = 600 ]'

expect_ok g config set --in cheap offers.filter 'price<=1'
expect_ok g config set --in cheap offers.sort price-
expect_ok g --profile cheap config get offers.filter
check "profile value" '[ "$OUT" = "price<=1" ]'
expect_ok g config get offers.sort
check "top level unchanged" '[ "$OUT" = gpu_price ]'
expect_ok env GPURENT_PROFILE=cheap "$GPURENT" offers -o json
check "profile's default filter applies" 'jq -e "length > 0 and all(.[]; .price_hour <= 1)" <<<"$OUT" >/dev/null'
expect_ok env GPURENT_PROFILE=cheap "$GPURENT" offers --no-defaults -o json
check "--no-defaults ignores it" 'jq -e "any(.[]; .price_hour > 1)" <<<"$OUT" >/dev/null'
expect_rc 2 g --profile nope offers
check "unknown profile named" '[[ $ERR == *nope* ]]'
expect_ok g config list -o json
check "list shows set keys" 'jq -e "any(.[]; .key == \"budget.month\" and .value == \"250\")" <<<"$OUT" >/dev/null'
expect_ok g config list --all -o json
check "list --all shows every key" '[ "$(jq length <<<"$OUT")" -ge 20 ]'
expect_ok g config unset budget.month
expect_rc 3 g config get budget.month
expect_ok g config set output json
expect_ok g gpus
check "output key sets the default format" 'jq -e length <<<"$OUT" >/dev/null'
expect_ok g gpus -o ids
check "-o beats the config" '[[ $OUT == B200* ]]'
pass
