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
# COLUMNS sets the width (man page: low-priority columns go whole, then long text is cut).
widest() { local l m=0; while IFS= read -r l; do [ ${#l} -gt $m ] && m=${#l}; done <<<"$1"; echo $m; }
expect_ok env COLUMNS=60 "$GPURENT" offers -n 5 -o table
check "COLUMNS=60 narrows the table to 60 ($(widest "$OUT"))" \
	'[ "$(widest "$OUT")" -le 60 ] && ! grep -q LOCATION <<<"$OUT"'
check "cut or not, the same offers in order" '[ "$(tail -n +2 <<<"$OUT" | awk "{print \$1}")" = "$ids" ]'

# A label full of terminal escapes is refused, not altered (a provider's strings are
# stripped on the way out: t011 checks every format).
offer=$(g offers type=on-demand -o ids -n 1)
expect_rc 2 g launch "$offer" --label $'evil\e[2J\e]0;pwn\a\x9b31mx'
check "the refusal names the ESC" '[[ $ERR == *ESC* ]]'
expect_ok g ls -o ids
check "nothing launched" '[ -z "$OUT" ]'
id=$(g launch "$offer" --label plain)
expect_ok g ls -o ids
check "ids" '[ -n "$id" ] && [ "$OUT" = "$id" ]'
# Tables fit the width: whole low-priority columns go before GPU is cut, never a wider line.
for w in 60 80 100; do
	expect_ok env COLUMNS=$w "$GPURENT" offers -n 20
	check "offers fit $w columns (widest $(widest "$OUT"))" '[ "$(widest "$OUT")" -le $w ]'
	check "GPU names whole at $w" '[[ $(head -1 <<<"$OUT") == ID*GPU* ]] && ! grep -q "…" <<<"$OUT"'
done
expect_ok env COLUMNS=80 "$GPURENT" offers -n 5
check "PROVIDER (in every id already) goes first at 80" '! grep -q PROVIDER <<<"$OUT"'
long=$(printf 'L%.0s' {1..63})
id=$(g launch "$(g offers type=on-demand -o ids -n 1)" --label "$long")
expect_ok g show $(g ls -o ids) -o csv
check "show A B -o csv: one header, one line per record" '[ "$(grep -c "^id," <<<"$OUT")" = 1 ] && [ "$(wc -l <<<"$OUT")" = 3 ]'
expect_ok g show $(g ls -o ids) -o tsv --no-header
check "show A B -o tsv --no-header: no header" '[ "$(wc -l <<<"$OUT")" = 2 ] && ! grep -q "^id" <<<"$OUT"'
expect_ok env COLUMNS=100 "$GPURENT" ls
check "ls fits 100 columns" '[ "$(widest "$OUT")" -le 100 ]'
gpu=$(g ls -o json | jq -r --arg id "$id" '.[] | select(.id == $id) | .gpu')
check "a long label is cut before the GPU ($gpu)" 'grep -q "  $gpu  " <<<"$OUT" && grep -q "L…" <<<"$OUT"'
pass
