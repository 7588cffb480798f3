#!/bin/bash
# Issue 29.1: terms as offers. `gpurent sim serve` sells each on-demand machine for a month
# at 20 % off and three at 30 % (sim.h): its vast dialect as reserved pricing (discount_rate,
# credit_discount_max), its PPIO dialect as pricing.prepaid. `offers type=reserved` and the
# term= terms list them with the term, the whole price, its hourly equivalent, the machine on
# demand, the discount and what happens at the end; a plain search lists none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1767225600
start_serve vast --api-key kv
use_provider vast kv
start_serve ppio --api-key kp
use_provider ppio kp

# A field of the offer with id $2 in $OUT; m: a money one in micro-units.
field() {
	jq -r --arg id "$2" ".[] | select(.id == \$id) | .$1" <<<"$OUT"
}
m() {
	jq -r --arg id "$2" ".[] | select(.id == \$id) | .$1 * 1000000 | round" <<<"$OUT"
}

expect_ok g -p vast -o json offers gpus=1
check "a plain search lists no term" '[ "$(jq "[.[] | select(.type == \"reserved\")] | length" <<<"$OUT")" = 0 ]'

# vast:362 is an RTX 3090 at $0.16/h of compute (dph_base): a month at 20 % off is $0.128/h,
# 720 h of it $92.16; three months at 30 % off $0.112/h, 2160 h $241.92.
expect_ok g -p vast -o json offers type=reserved gpus=1
# figure: term-offer
check "vast:362t1: a month, \$92.16 whole, \$0.128/h, 20 % off \$0.16/h, then on demand" \
	'[ "$(field term_months vast:362t1) $(m term_price vast:362t1) $(m price_hour vast:362t1) $(field discount_pct vast:362t1) $(m ondemand_price_hour vast:362t1) $(field term_end vast:362t1)" = "1 92160000 128000 20 160000 on-demand" ]'
check "vast:362t3: three months, \$241.92 whole, \$0.112/h, 30 % off" \
	'[ "$(field term_months vast:362t3) $(m term_price vast:362t3) $(m price_hour vast:362t3) $(field discount_pct vast:362t3)" = "3 241920000 112000 30" ]'
check "only terms" '[ "$(jq "[.[] | select(.type != \"reserved\")] | length" <<<"$OUT")" = 0 ]'
expect_ok g -p vast -o json offers term=1mo gpus=1
check "term=1mo: one-month terms only" '[ "$(jq -c "[.[].term_months] | unique" <<<"$OUT")" = "[1]" ]'

# PPIO's H100 at ¥13.104 a GPU-hour ($1.82 at 7.2): prepaid a month at 20 % off, per GPU
# 1.456 × 720 = $1048.32 = ¥7547.904, ¥10.4832/h; two GPUs for three months at 30 % off,
# 2 × 1.274 × 2160 = $5503.68 = ¥39626.496 whole, ¥18.3456/h, against ¥26.208/h.
expect_ok g -p ppio -o json offers gpu=h100-sxm term=1mo gpus=1
one=$(jq -r '.[0].id' <<<"$OUT")
check "a PPIO prepaid month: ¥7547.904 whole, ¥10.4832/h, 20 % off ¥13.104/h ($one)" \
	'[ "$(m term_price "$one") $(m price_hour "$one") $(field discount_pct "$one") $(m ondemand_price_hour "$one") $(field currency "$one")" = "7547904000 10483200 20 13104000 CNY" ]'
expect_ok g -p ppio -o json offers gpu=h100-sxm 'term>=3mo' gpus=2
two=$(jq -r '.[0].id' <<<"$OUT")
check "three months of two GPUs: ¥39626.496 whole, ¥18.3456/h, 30 % off ($two)" \
	'[ "$(field term_months "$two") $(m term_price "$two") $(m price_hour "$two") $(field discount_pct "$two")" = "3 39626496000 18345600 30" ]'
check "term>=3mo: no month" '[ "$(jq -c "[.[].term_months] | unique" <<<"$OUT")" = "[3]" ]'

# The table shows the term's columns when terms are asked for.
expect_ok env COLUMNS=250 "$GPURENT" -p vast offers type=reserved gpus=1 --limit 2
check "the table has TERM PRICE, OFF % and AT END" \
	'[[ "$OUT" == *"TERM PRICE"*"OFF %"*"AT END"* ]] && [[ "$OUT" == *"\$241.92"*"30.00"*on-demand* ]]'
pass
