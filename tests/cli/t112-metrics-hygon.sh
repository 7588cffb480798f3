#!/usr/bin/env bash
# metrics and verify on a Hygon DCU machine: the sshd "instance" has hy-smi and rocm-smi
# together, as Hygon's DTK ships them (the stand-ins of tests/probes/bin replaying
# tests/data/probes/hygon/), and no nvidia-smi. Hygon, not AMD, though rocm-smi is there;
# hy-smi's invalid JSON read whole; DTK's rocm-smi when hy-smi fails; K100_AI mapped to the
# catalogue's Hygon K100 by verify.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand gpu=H100-SXM-80GB gpus=8 -- --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

vendor_double hy-smi
vendor_double rocm-smi ROCM_SMI_FILE=hygon/hy-smi-k100ai.json
expect_ok g metrics "$id" --source ssh -o json
check "eight Hygon DCUs, not AMD GPUs" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .vendor == \"hygon\")" <<<"$OUT" >/dev/null'
check "every figure of hy-smi's invalid JSON" 'jq -e ".[5] | .gpu == 5 and .util_pct == 50
	and .memory_used_mib == 5002 and .memory_total_mib == 65520 and .temp_c == 45
	and .memory_temp_c == 47 and .power_w == 75 and .name == \"K100_AI\"
	and .uuid == \"a000000000000005\"" <<<"$OUT" >/dev/null'
check "what hy-smi does not report is null, not zero" 'jq -e "all(.[]; .power_limit_w == null
	and .memory_util_pct == null and .memory_free_mib == null and .clock_sm_mhz == null
	and .fan_pct == null and .pcie_gen == null and .ecc_uncorrected == null and .mig == null
	and .cuda == null and .driver == null)" <<<"$OUT" >/dev/null'
check "hy-smi ran, rocm-smi did not" '[ "$(vendor_calls hy-smi)" = 1 ] && [ "$(vendor_calls rocm-smi)" = 0 ]'

# hy-smi failing: DTK's rocm-smi answers, and the machine is still Hygon.
vendor_double hy-smi HY_SMI_BROKEN=1
expect_ok g metrics "$id" --source ssh -o json
check "DTK's rocm-smi: one K100_AI" 'jq -e "length == 1 and (.[0] | .vendor == \"hygon\"
	and .name == \"K100_AI\" and .memory_total_mib == 65520 and .power_w == 77 and .temp_c == 37)" <<<"$OUT" >/dev/null'
check "rocm-smi ran once" '[ "$(vendor_calls rocm-smi)" = 1 ]'

# verify: K100_AI is the catalogue's Hygon K100, not the H100 rented.
vendor_double hy-smi
expect_rc 14 g verify "$id" -o json
check "K100_AI mapped, and a mismatch" 'jq -e "(.[] | select(.check == \"gpu_model\")
	| .found == \"HYGON-K100 (K100_AI)\" and .result == \"mismatch\")
	and (.[] | select(.check == \"gpu_count\") | .found == \"8\" and .result == \"ok\")" <<<"$OUT" >/dev/null'
pass
