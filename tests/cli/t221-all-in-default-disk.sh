#!/usr/bin/env bash
# "All in" counts the disk a launch gets without --disk (issue 24, item 3): the simulator's
# 50 GB default bills its storage as the same disk named with --disk 50 does, so the dry run
# shows it, --max-price compares it, and both spellings rank and refuse alike.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

micros() { jq -r "$1 * 1000000 | round" <<<"$2"; }

# The cheapest 8 x H100 and its storage price per GB-month.
expect_ok g offers gpu=h100 gpus=8 type=on-demand --sort price -o json
offer=$(jq -r '.[0].id' <<<"$OUT")
p=$(micros '.[0].price_hour' "$OUT")
gbmo=$(micros '.[0].storage_gb_month' "$OUT")
# 50 GB for one of the 730 hours of a month, rounded half up.
disk=$(((gbmo * 50 + 365) / 730))
allin=$((p + disk))
check "an offer ($offer at $p, storage $gbmo micro-dollars/GB-month)" '[ "$p" -gt 0 ] && [ "$disk" -gt 0 ]'

expect_ok g launch --gpu h100 --count 8 --max-price 25 --dry-run -o json
check "the dry run's first is $offer" '[ "$(jq -r ".[0].id" <<<"$OUT")" = "$offer" ]'
check "its disk: $disk micro-dollars/h" '[ "$(micros ".[0].storage_hour" "$OUT")" = "$disk" ]'
check "all in: $allin" '[ "$(micros ".[0].all_in_hour" "$OUT")" = "$allin" ]'
default=$OUT
expect_ok g launch --gpu h100 --count 8 --max-price 25 --dry-run --disk 50 -o json
check "the same as --disk 50 written out" '[ "$OUT" = "$default" ]'
expect_ok g launch --gpu h100 --count 8 --max-price 25 --dry-run
row=$(grep " $offer " <<<"$OUT")
show() { printf '$%d.%03d' $((($1 + 500) / 1000000)) $(((($1 + 500) % 1000000) / 1000)); }
check "the table: DISK/H $(show $disk), ALL-IN/H $(show $allin)" \
	'[[ $row == *" $(show $disk) "* && $row == *" $(show $allin)" ]]'

# --max-price at the compute price alone: the disk takes it over, with or without --disk.
max=$(awk "BEGIN { printf \"%.6f\", $p / 1e6 }")
expect_rc 3 g launch --gpu h100 --count 8 --max-price "$max" --dry-run
check "no offer at the compute price ($max) alone" '[[ $ERR == *"no offer meets the requirement"* ]]'
expect_rc 3 g launch --gpu h100 --count 8 --max-price "$max" --dry-run --disk 50
expect_rc 2 g launch "$offer" --max-price "$max" --dry-run
check "an offer named: refused, its all-in said" \
	'[[ $ERR == *"costs $(show $allin)/h all in, more than the --max-price $(show $p)/h"* ]]'
max=$(awk "BEGIN { printf \"%.6f\", $allin / 1e6 }")
expect_ok g launch --gpu h100 --count 8 --max-price "$max" --dry-run -o json
check "at its all-in price ($max): admitted" '[ "$(jq -r ".[0].id" <<<"$OUT")" = "$offer" ]'
expect_ok g launch "$offer" --max-price "$max" --label big
id=$OUT
expect_ok g show "$id" -o json
check "the rented disk bills what all-in counted" '[ "$(micros .storage_hour "$OUT")" = "$disk" ] &&
	[ "$(micros .price_hour "$OUT")" = "$p" ]'
pass
