#!/usr/bin/env bash
# The filter language, sorting and limits, checked through JSON.
. "$(dirname "$0")/lib.sh"

expect_ok g offers -o json
n=$(jq length <<<"$OUT")
check "at least 300 offers ($n)" '[ "$n" -ge 300 ]'
check "every offer has the schema" '[ "$(jq "[.[] | select(.id and .gpu and .price_hour and .gpus and .region and .type)] | length" <<<"$OUT")" = "$n" ]'
check "several GPU models" '[ "$(jq "[.[].gpu] | unique | length" <<<"$OUT")" -ge 12 ]'
check "MI300X is on the market" 'jq -e "any(.[]; .gpu == \"MI300X-192GB\")" <<<"$OUT" >/dev/null'
check "1, 2, 4 and 8 GPU machines" '[ "$(jq -c "[.[].gpus] | unique" <<<"$OUT")" = "[1,2,4,8]" ]'
check "several continents" '[ "$(jq "[.[].region | split(\"-\")[0]] | unique | length" <<<"$OUT")" -ge 5 ]'
check "H100 SXM on demand priced 1.8..3.5 per GPU-hour" \
	'jq -e "[.[] | select(.gpu == \"H100-SXM-80GB\" and .type == \"on-demand\") | .price_per_gpu_hour] | all(. >= 1.8 and . <= 3.5)" <<<"$OUT" >/dev/null'
check "interruptible below on-demand for H100 SXM" \
	'jq -e "([.[] | select(.gpu == \"H100-SXM-80GB\" and .type == \"interruptible\") | .price_per_gpu_hour] | min) < ([.[] | select(.gpu == \"H100-SXM-80GB\" and .type == \"on-demand\") | .price_per_gpu_hour] | min)" <<<"$OUT" >/dev/null'
check "sorted by price by default" 'jq -e "[.[].price_hour] as \$p | \$p == (\$p | sort)" <<<"$OUT" >/dev/null'

expect_ok g offers 'gpu=h100,h200' 'gpus>=8' 'vram>=80' 'price<=40' -o json
check "filtered offers match" 'jq -e "length > 0 and all(.[]; (.gpu | test(\"^H1|^H2\")) and .gpus >= 8 and .vram_gb >= 80 and .price_hour <= 40)" <<<"$OUT" >/dev/null'
expect_ok g offers region=eu 'reliability>=0.98' interconnect=nvlink -o json
check "region, reliability, interconnect" 'jq -e "length > 0 and all(.[]; (.region | startswith(\"eu-\")) and .reliability >= 0.98 and (.interconnect == \"nvlink\" or .interconnect == \"infiniband\"))" <<<"$OUT" >/dev/null'
expect_ok g offers type=interruptible -o json
check "type filter" 'jq -e "length > 0 and all(.[]; .type == \"interruptible\")" <<<"$OUT" >/dev/null'
expect_ok g offers gpu = RTX4090 -o json
check "spaced term and case-insensitive GPU" 'jq -e "length > 0 and all(.[]; .gpu == \"RTX4090-24GB\")" <<<"$OUT" >/dev/null'
expect_ok g offers 'gpu!=rtx4090,rtx3090' -o json
check "!= list excludes" 'jq -e "length > 0 and all(.[]; .gpu != \"RTX4090-24GB\" and .gpu != \"RTX3090-24GB\")" <<<"$OUT" >/dev/null'
expect_ok g offers gpu=a100-80gb -o json
check "alias selects both 80 GB A100s" '[ "$(jq -c "[.[].gpu] | unique" <<<"$OUT")" = "[\"A100-PCIE-80GB\",\"A100-SXM-80GB\"]" ]'

expect_ok g offers --sort gpu_price- --limit 5 -o json
check "descending sort and limit" 'jq -e "length == 5 and ([.[].price_per_gpu_hour] as \$p | \$p == (\$p | sort | reverse))" <<<"$OUT" >/dev/null'
expect_ok g offers --sort tflop_price gpu=h100 -n 3 -o json
check "tflop price sort" 'jq -e "[.[].price_per_tflop_hour] as \$p | \$p == (\$p | sort)" <<<"$OUT" >/dev/null'
expect_ok g offers gpu=h100 -o ids -n 2
check "ids output" '[ "$(wc -l <<<"$OUT")" = 2 ] && [[ $OUT == sim:o-* ]]'
expect_ok g offers 'price<0.01' -o json
check "no match is an empty array" '[ "$OUT" = "[]" ]'

# Same seed, same market (fetched_at is when each search was answered).
a=$(g offers -o json | jq -c '[.[0:20][] | del(.fetched_at)]')
b=$(g offers -o json | jq -c '[.[0:20][] | del(.fetched_at)]')
check "deterministic" '[ "$a" = "$b" ]'
c=$(GPURENT_SIM_SEED=7 g offers -o json | jq -c '.[0:20]')
check "another seed, another market" '[ "$a" != "$c" ]'

# A 10,000-offer market.
expect_ok env GPURENT_SIM_OFFERS=10000 "$GPURENT" offers -o ids
check "10,000-offer market" '[ "$(wc -l <<<"$OUT")" -ge 8000 ]'
pass
