#!/bin/bash
# Issue 16 part 2: every GPU has a name. Recorded RunPod and vast replies (tests/data/*/
# *-names.json) served on 127.0.0.1 hold GPUs the catalogue lacks (an RTX 3060, and a name
# with terminal escapes), one it learnt (RTX 3070) and AMD parts: the unknown ones are shown
# by the provider's own name, stripped of control characters, never "unknown"; `gpus
# --unknown` lists them; gpu= matches them by name; vendor= filters offers and the catalogue.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

python3 "$SRCDIR/tests/cli/fixture-serve.py" \
	/graphql="$SRCDIR/tests/data/runpod/gpu-types-names.json" \
	/api/v0/bundles/="$SRCDIR/tests/data/vast/offers-names.json" \
	>"$TMP/serve.out" 2>"$TMP/serve.err" &
pid=$!
CLEANUP_HOOKS+=("kill $pid 2>/dev/null; wait $pid 2>/dev/null")
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^listening on //p' "$TMP/serve.out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || fail "fixture-serve did not start: $(cat "$TMP/serve.err")"
export GPURENT_RUNPOD_URL=$url GPURENT_RUNPOD_API_KEY=k-runpod
export GPURENT_VAST_URL=$url GPURENT_VAST_API_KEY=k-vast
hostile_shown='NVIDIA GeForce RTX 30[2J]0;pwned50'
ctl=$'[\x01-\x1f\x7f]'

# Nothing seen yet: no unknown names, and a name no catalogue model answers to is a typo.
expect_ok g gpus --unknown -o json
check "no names seen yet" '[ "$(jq length <<<"$OUT")" = 0 ]'
expect_rc 2 g -p runpod offers gpu=rtx3060
check "the typo message points at --unknown" '[[ $ERR == *"gpus --unknown"* ]]'

# RunPod: the RTX 3070 is catalogued now; the others are shown by RunPod's name.
expect_ok g -p runpod offers -o json
check "five offers" '[ "$(jq length <<<"$OUT")" = 5 ]'
check "no GPU is 'unknown'" '[ "$(jq "[.[] | select(.gpu == \"unknown\" or .gpu == null)] | length" <<<"$OUT")" = 0 ]'
check "RTX 3070 known" '[ "$(jq -r ".[] | select(.gpu_name == \"NVIDIA GeForce RTX 3070\") | \"\\(.gpu)|\\(.gpu_known)|\\(.vendor)\"" <<<"$OUT")" = "RTX3070|true|NVIDIA" ]'
check "RTX 3070 VRAM from RunPod" '[ "$(jq ".[] | select(.gpu == \"RTX3070\") | .vram_gb" <<<"$OUT")" = 8 ]'
check "RTX 3060 by its name" '[ "$(jq -r ".[] | select(.gpu_name == \"NVIDIA GeForce RTX 3060\") | \"\\(.gpu)|\\(.gpu_known)|\\(.vendor)\"" <<<"$OUT")" = "NVIDIA GeForce RTX 3060|false|null" ]'
check "hostile name stripped" '[ "$(jq -r ".[] | select(.gpu_known == false and .vram_gb == 8) | .gpu" <<<"$OUT")" = "$hostile_shown" ]'
check "no price per TFLOP without TFLOPS" '[ "$(jq "[.[] | select(.gpu_known == false or .gpu == \"RTX3070\") | .price_per_tflop_hour] | unique" -c <<<"$OUT")" = "[null]" ]'
check "price per TFLOP where known" '[ "$(jq ".[] | select(.gpu == \"H100-SXM-80GB\") | .price_per_tflop_hour > 0" <<<"$OUT")" = true ]'
expect_ok g -p runpod offers -o table --sort price
check "table shows the name" '[[ $OUT == *"NVIDIA GeForce RTX 3060"* ]]'
check "table never says unknown" '[[ $OUT != *unknown* ]]'
check "no control character reaches the terminal" '! grep -q "$ctl" <<<"$OUT"'
check "the stripped name in the table" '[[ $OUT == *"$hostile_shown"* ]]'

# vast: the same.
expect_ok g -p vast offers -o json type=on-demand
check "vast RTX 3060 by its name" '[ "$(jq -r ".[] | select(.id == \"vast:501\") | \"\\(.gpu)|\\(.gpu_known)\"" <<<"$OUT")" = "RTX 3060|false" ]'
check "vast RTX 4090D known" '[ "$(jq -r ".[] | select(.id == \"vast:503\") | .gpu" <<<"$OUT")" = RTX4090D ]'

# What was seen and the catalogue lacks, so that it can be completed.
expect_ok g gpus --unknown -o json
check "three unknown names" '[ "$(jq length <<<"$OUT")" = 3 ]'
check "runpod RTX 3060 listed" '[ "$(jq -r ".[] | select(.provider == \"runpod\" and .gpu_name == \"NVIDIA GeForce RTX 3060\") | .vram_gb" <<<"$OUT")" = 12 ]'
check "hostile name listed stripped" '[ "$(jq -r ".[] | select(.provider == \"runpod\" and .vram_gb == 8) | .gpu_name" <<<"$OUT")" = "$hostile_shown" ]'
check "vast RTX 3060 listed" '[ "$(jq -r ".[] | select(.provider == \"vast\") | .gpu_name" <<<"$OUT")" = "RTX 3060" ]'
check "catalogued names are not listed" '[ "$(jq "[.[] | select(.gpu_name | test(\"3070|4090D|MI\"))] | length" <<<"$OUT")" = 0 ]'
check "first seen is a time" '[ "$(jq -r ".[0].first_seen | test(\"^[0-9]{4}-\")" <<<"$OUT")" = true ]'
expect_ok g gpus --unknown
check "the table is clean" '! grep -q "$ctl" <<<"$OUT" && [[ $OUT == *"RTX 3060"* ]]'
expect_rc 2 g gpus --unknown vendor=amd

# Filters: by the provider's name (seen now), by the catalogue's, by vendor.
expect_ok g -p runpod,vast offers gpu=rtx3060 -o json
check "gpu=rtx3060 finds both by name" '[ "$(jq -r "[.[].provider] | sort | join(\",\")" <<<"$OUT")" = "runpod,vast" ]'
expect_ok g -p runpod offers gpu=rtx3070 -o json
check "gpu=rtx3070" '[ "$(jq -r "[.[].gpu] | join(\",\")" <<<"$OUT")" = RTX3070 ]'
expect_ok g -p runpod offers gpu!=rtx3060 -o json
check "gpu!= excludes by name" '[ "$(jq "[.[] | select(.gpu == \"NVIDIA GeForce RTX 3060\")] | length" <<<"$OUT")" = 0 ] && [ "$(jq length <<<"$OUT")" = 4 ]'
expect_ok g -p runpod,vast offers vendor=amd -o json
check "vendor=amd" '[ "$(jq -r "[.[].gpu] | sort | join(\",\")" <<<"$OUT")" = "MI210-64GB,MI300X-192GB" ]'
expect_ok g -p runpod,vast offers vendor=nvidia -o json
check "vendor=nvidia: known NVIDIA GPUs" '[ "$(jq -r "[.[].gpu] | sort | join(\",\")" <<<"$OUT")" = "H100-SXM-80GB,RTX3070,RTX4090D" ]'
expect_ok g -p runpod,vast offers vendor!=nvidia,amd -o json
check "vendor!= keeps the unknown" '[ "$(jq "[.[] | select(.gpu_known)] | length" <<<"$OUT")" = 0 ] && [ "$(jq length <<<"$OUT")" = 3 ]'
expect_ok g -p runpod offers vendor=huawei -o json
check "vendor=huawei: none here" '[ "$(jq length <<<"$OUT")" = 0 ]'
expect_rc 2 g -p runpod offers vendor=nvidai
check "bad vendor lists vendors" '[[ $ERR == *"huawei"* ]]'
expect_rc 2 g offers vendor'>'amd

# The catalogue by vendor.
expect_ok g gpus vendor=huawei -o json
check "gpus vendor=huawei" '[ "$(jq -r "[.[].id] | join(\",\")" <<<"$OUT")" = "ASCEND-910B,ASCEND-910C" ]'
expect_ok g gpus vendor=amd -o json
check "gpus vendor=amd" '[ "$(jq -r "[.[].id] | sort | join(\",\")" <<<"$OUT")" = "MI210-64GB,MI250,MI250X-128GB,MI300X-192GB,MI325X" ]'
check "unknown figures are null" '[ "$(jq -c "[.[] | select(.id == \"MI325X\") | .vram_gb, .bf16_tflops, .fp16_tflops, .tdp_w]" <<<"$OUT")" = "[null,null,null,null]" ]'
expect_ok g gpus vendor=moore-threads,iluvatar,biren,metax,cambricon,hygon,intel -o ids
check "every other vendor" '[ "$(tr "\n" " " <<<"$OUT")" = "GAUDI2-96GB GAUDI3 HYGON-K100 MLU370 MLU590 MTT-S4000 BI-V150 BR104 METAX-C500 " ]'
expect_ok g gpus 'vram>=141' vendor=nvidia -o ids
check "gpus vram>=141" '[ "$(tr "\n" " " <<<"$OUT")" = "B200-SXM-180GB H200-SXM-141GB H200-NVL-141GB GH200-144GB B300-SXM-288GB " ]'
expect_rc 2 g gpus price'<'1
expect_ok g __complete args offers vendor=hu
check "vendor completes" '[ "$OUT" = vendor=huawei ]'
pass
