#!/usr/bin/env bash
# audit and gpus on an 80-column terminal fit as offers and ls do: the columns that say
# what a row is and what it cost stay, the rest go; nothing wraps. Audit's energy column
# says where the kWh came from (power samples or the TDP), never a bare true or false.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

widest() { wc -L <<<"$1"; }

COLUMNS=80 expect_ok g gpus
check "gpus fits 80 columns: $(widest "$OUT")" '[ "$(widest "$OUT")" -le 80 ]'
check "and keeps the names a filter takes and the memory: $(head -1 <<<"$OUT")" \
	'[[ $(head -1 <<<"$OUT") == ID*"VRAM GB"*ALIASES* ]] && grep -q "^H100-SXM-80GB .* h100" <<<"$OUT"'
COLUMNS=200 expect_ok g gpus
check "wide, every column" '[[ $(head -1 <<<"$OUT") == ID*FAMILY*VENDOR*"VRAM GB"*"FP16 TFLOPS"*"TDP W"*ALIASES ]]'

for w in 80 100; do
	COLUMNS=$w expect_ok g offers -n 3
	check "offers fits $w columns" '[ "$(widest "$OUT")" -le $w ]'
done

expect_ok g launch --gpu h100 --count 1 --dry-run -o json
third=$(jq -r '.[2].id' <<<"$OUT")
id=$(g launch "$third" --label a-rather-long-label-for-a-narrow-terminal) || fail "launch"
expect_ok g sim advance 50m
for i in 1 2 3; do
	expect_ok g metrics "$id"
	expect_ok g sim advance 60
done
for by in instance label; do
	COLUMNS=80 expect_ok g audit --by "$by"
	check "audit --by $by fits 80 columns, the cheaper offers too: $(widest "$OUT")" \
		'[ "$(widest "$OUT")" -le 80 ] && grep -q "cheaper now" <<<"$OUT"'
	check "and keeps what a row is, its spend, use and waste: $(head -1 <<<"$OUT")" \
		'[[ $(head -1 <<<"$OUT") == KEY*SPEND*"UTIL %"*"IDLE %"*WASTE* ]]'
done
COLUMNS=200 expect_ok g audit --offline
check "the energy column says where the kWh came from: $OUT" \
	'[[ $(head -1 <<<"$OUT") == *" KWH FROM "* ]] && grep -q "^$id .* samples " <<<"$OUT" &&
	 grep -q "^total .* samples " <<<"$OUT"'
check "never a bare true or false in the table" '! grep -qw -e true -e false <<<"$OUT"'
expect_ok g audit --offline -o json
check "JSON keeps the boolean" 'jq -e ".rows[0].energy_estimated == false" <<<"$OUT" >/dev/null'
pass
