#!/usr/bin/env bash
# Names gpurent does not know are refused where they are given (issue 24 item 9): a group's
# unknown GPU as launch --gpu refuses it (not at each pass of the watcher), a currency that
# is no ISO 4217 code wherever an amount or a currency is taken, while a real code is
# accepted in any case.
. "$(dirname "$0")/lib.sh"

expect_rc 2 g launch --gpu nosuch --dry-run
launch_says=${ERR#gpurent launch: }
launch_says=${launch_says%%$'\n'*}
expect_rc 2 g group create g4 --gpu nosuch --max 2 --target-util 50
check "group create refuses an unknown GPU in launch's words" \
	'[[ $ERR == "gpurent group: $launch_says"* && $launch_says == *"unknown GPU '"'nosuch'"'"* ]]'
expect_ok g group ls -o ids
check "and creates nothing" '[ -z "$OUT" ]'
expect_ok g group create g4 --gpu h100 --max 2 --target-util 50
expect_rc 2 g group create g5 --gpu a100 --max 2 --target-util 50 --max-price "90 XYZ"
expect_rc 2 g launch --gpu a100 --max-price "2 xyz" --dry-run

# Currencies: ISO 4217 codes in any case; three letters that are none are refused.
expect_rc 2 g config set budget.day "300 XYZ"
check "an unknown currency is refused" '[[ $ERR == *"300 XYZ"* ]]'
expect_rc 3 g config get budget.day
expect_ok g config set budget.day "300 usd"
expect_ok g config set budget.day "eur 300"
expect_ok g config set budget.day "0.01 usd"
offer=$(g offers type=on-demand -o ids -n 1)
expect_rc 9 g launch "$offer" --dry-run
check "a budget in 'usd' is read as dollars" '[[ $ERR == *"\$0.01"* ]]'
expect_ok g config set fx.cny 0.14
check "a rate's key is kept in capitals" 'grep -qx "fx.CNY = 0.14" "$(g config path)"'
expect_ok g config get fx.cny
check "and read in any case" '[ "$OUT" = 0.14 ]'
expect_rc 2 g config set fx.xyz 1
expect_rc 2 g config set ppio.currency XYZ
check "a provider's currency is checked" '[[ $ERR == *"ISO 4217"* ]]'
expect_ok g config set ppio.currency usd
pass
