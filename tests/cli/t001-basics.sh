#!/usr/bin/env bash
# Version, help, unknown commands and the home directory stay untouched by read-only commands.
. "$(dirname "$0")/lib.sh"

expect_ok g --version
check "version line" '[[ $OUT == "gpurent "[0-9]* ]]'
expect_ok g version
expect_ok g help
check "help lists commands" '[[ $OUT == *offers* && $OUT == *launch* && $OUT == *costs* ]]'
expect_ok g help offers
check "command help shows the filter fields" '[[ $OUT == *reliability* ]]'
expect_ok g offers --help
check "--help is the same as help" '[[ $OUT == *"usage: gpurent offers"* ]]'
expect_rc 2 g offerz
check "did-you-mean" '[[ $ERR == *"did you mean '\''offers'\''"* ]]'
expect_rc 2 g xyzzy-nothing
check "unknown command names itself" '[[ $ERR == *xyzzy-nothing* ]]'
expect_rc 2 g offers --no-such-option
check "unknown option named" '[[ $ERR == *--no-such-option* ]]'
expect_rc 2 g -o yaml offers
check "bad format named" '[[ $ERR == *yaml* ]]'
expect_ok g gpus -o json
check "catalogue has the H100 SXM" '[ "$(jq -r ".[] | select(.id == \"H100-SXM-80GB\") | .vram_gb" <<<"$OUT")" = 80 ]'
check "no home files for version/help/gpus" '[ ! -e "$GPURENT_HOME" ]'
pass
