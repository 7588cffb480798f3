#!/usr/bin/env bash
# Output formats, field selection, sizing, and terminal safety of provider strings.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

# Every format carries the same records as JSON, field for field (not just as many lines).
expect_ok g offers -n 3 -o json --fields id,gpu,price_hour,location
json=$OUT
check "three offers in JSON" 'jq -e "length == 3" <<<"$json" >/dev/null'
expect_ok g offers -n 3 -o csv --fields id,gpu,price_hour
check "csv header" '[ "$(head -1 <<<"$OUT")" = "id,gpu,price_hour" ]'
check "csv rows are the JSON records" \
	'[ "$(tail -n +2 <<<"$OUT")" = "$(jq -r ".[] | \"\(.id),\(.gpu),\(.price_hour)\"" <<<"$json")" ]'
expect_ok g offers -n 3 -o tsv --fields id,location --no-header
check "tsv rows (no header) are the JSON records" \
	'[ "$OUT" = "$(jq -r ".[] | [.id, .location] | @tsv" <<<"$json")" ]'
expect_ok g offers -n 2 -o json --fields id,price_hour
check "json honours --fields" 'jq -e "all(.[]; keys == [\"id\",\"price_hour\"])" <<<"$OUT" >/dev/null'
expect_ok g offers -n 2 --fields gpu,id
check "table column order follows --fields" '[[ $(head -1 <<<"$OUT") == GPU*ID ]]'
expect_ok g offers -n 5
check "no colour escapes off a terminal" '! grep -q $'\''\e'\'' <<<"$OUT"'
expect_ok g --color always offers -n 5
check "--color always colours" 'grep -q $'\''\e\['\'' <<<"$OUT"'
expect_ok g offers -n 5 -o ids
ids=$OUT
expect_ok g offers -n 5 -o table
# Off a terminal and without COLUMNS a table is not cut: whole locations, no ellipsis.
check "table rows are the offers, in order" '[ "$(tail -n +2 <<<"$OUT" | awk "{print \$1}")" = "$ids" ]'
check "off a terminal nothing is cut" '! grep -q "…" <<<"$OUT" && grep -q "Montréal, CA" <<<"$OUT"'
# COLUMNS sets the width (man page: the widest columns are cut first, ending in an ellipsis).
expect_ok env COLUMNS=60 "$GPURENT" offers -n 5 -o table
check "COLUMNS=60 cuts columns with an ellipsis" 'grep -q "…" <<<"$OUT"'
check "cut or not, the same offers in order" '[ "$(tail -n +2 <<<"$OUT" | awk "{print \$1}")" = "$ids" ]'

# A label full of terminal escapes comes back stripped everywhere.
id=$(g launch "$(g offers type=on-demand -o ids -n 1)" --label $'evil\e[2J\e]0;pwn\a\x9b31mx')
expect_ok g ls
check "no escape in table" '! grep -q $'\''\e'\'' <<<"$OUT" && ! grep -q $'\''\a'\'' <<<"$OUT"'
expect_ok g ls -o json
check "json stays valid and clean" 'jq -e ".[0].label | test(\"\\u001b|\\u0007\") | not" <<<"$OUT" >/dev/null'
expect_ok g ls -o csv
check "no escape in csv" '! grep -q $'\''\e'\'' <<<"$OUT"'
expect_ok g costs --by label -o tsv
check "no escape in costs" '! grep -q $'\''\e'\'' <<<"$OUT"'
expect_ok g ls -o ids
check "ids" '[ "$OUT" = "$id" ]'
pass
