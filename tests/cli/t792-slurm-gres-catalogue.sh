#!/usr/bin/env bash
# A Slurm GRES type is a catalogue GPU where its name says which (issue 28 item 3): the test
# cluster's "h100" is an H100 SXM 80 GB with its memory and TFLOPS, so its price per TFLOP
# is known, and the GRES type stays visible (gpu_name). slurm.gpu.TYPE names the GPU where
# the name does not say, or says otherwise; it takes only a catalogue id.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm

offer() {
	jq -c '.[] | select(.id == "slurm:gpu/h100") |
		{gpu, gpu_name, gpu_known, vendor, vram_gb, tflops, price_per_tflop_hour}' <<<"$OUT"
}

expect_ok g config set slurm.price.h100 2.10
expect_ok g offers -o json
# 4 x 2.10 = 8.40 an hour over 4 x 989.5 = 3958 dense BF16 TFLOPS: 8,400,000 x 10 / 39,580 =
# 2,122.28 micro-dollars per TFLOP-hour, 0.002122.
check "h100 is the H100 SXM 80 GB, its TFLOPS and price per TFLOP known: $(offer)" \
	'[ "$(offer)" = "{\"gpu\":\"H100-SXM-80GB\",\"gpu_name\":\"h100\",\"gpu_known\":true,\"vendor\":\"NVIDIA\",\"vram_gb\":80,\"tflops\":3958,\"price_per_tflop_hour\":0.002122}" ]'
expect_ok g offers gpu=h100-sxm -o ids
check "a filter on the model finds it" '[ "$(wc -l <<<"$OUT")" = 2 ]'

# The user's word over the name's: a PCIe card. 4 x 756.5 = 3026 TFLOPS: 8,400,000 x 10 /
# 30,260 = 2,775.94, 0.002776.
expect_ok g config set slurm.gpu.h100 H100-PCIE-80GB
expect_ok g offers -o json
check "slurm.gpu.h100 makes it the PCIe card: $(offer)" \
	'[ "$(offer)" = "{\"gpu\":\"H100-PCIE-80GB\",\"gpu_name\":\"h100\",\"gpu_known\":true,\"vendor\":\"NVIDIA\",\"vram_gb\":80,\"tflops\":3026,\"price_per_tflop_hour\":0.002776}" ]'

# A job's GPU is the same model.
expect_ok g launch slurm:gpu/h100 --count 2 --label gres
id=$OUT
expect_ok g show "$id" -o json
check "the job's GPU is the configured model, the GRES type kept" \
	'jq -e ".gpu == \"H100-PCIE-80GB\" and .gpu_name == \"h100\"" <<<"$OUT" >/dev/null'
expect_ok g destroy --yes "$id"

# Only a catalogue id: a family or a typo is refused, and nothing is set.
expect_rc 2 g config set slurm.gpu.a100 a100
check "a family is not an id" '[[ $ERR == *"slurm.gpu.a100"*"H100-PCIE-80GB"*"gpurent gpus"* ]]'
expect_rc 2 g config set slurm.gpu.a100 A100-80GB-TYPO
expect_rc 3 g config get slurm.gpu.a100
pass
