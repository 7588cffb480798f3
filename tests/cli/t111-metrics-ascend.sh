#!/usr/bin/env bash
# metrics and verify on a Huawei Ascend machine: the sshd "instance" has npu-smi (the
# stand-in of tests/probes/bin replaying tests/data/probes/ascend/) and no nvidia-smi. The
# vendor, every figure of the key : value blocks and null for the rest, the table when the
# NPUs cannot be listed, verify mapping 910B3 to the catalogue's Ascend 910B.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

h100x8() { g offers type=on-demand gpu=H100-SXM-80GB gpus=8 -o ids -n 1; }
id=$(g launch "$(h100x8)" --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

vendor_double npu-smi
expect_ok g metrics "$id" --source ssh -o json
check "eight Ascend NPUs over ssh" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .vendor == \"ascend\")" <<<"$OUT" >/dev/null'
check "every figure of NPU 3's blocks" 'jq -e ".[3] | .instance_id == \"$id\" and .gpu == 3
	and .util_pct == 63 and .memory_util_pct == 6 and .memory_used_mib == 22938
	and .memory_total_mib == 65536 and .temp_c == 42 and .power_w == 104
	and .name == \"Ascend 910B3\" and .uuid == \"0000:82:00.0\" and .driver == \"25.5.1\"" <<<"$OUT" >/dev/null'
check "what npu-smi does not report is null, not zero" 'jq -e "all(.[]; .power_limit_w == null
	and .memory_free_mib == null and .memory_temp_c == null and .clock_sm_mhz == null
	and .clock_mem_mhz == null and .fan_pct == null and .pstate == null and .pcie_gen == null
	and .encoder_pct == null and .ecc_uncorrected == null and .mig == null and .xid == null
	and .cuda == null)" <<<"$OUT" >/dev/null'
check "npu-smi: the list, the names, four blocks per NPU" '[ "$(vendor_calls npu-smi)" = 34 ]'

# npu-smi that cannot list its NPUs: the table, read by position.
vendor_double npu-smi NPU_SMI_NO_LIST=1
expect_ok g metrics "$id" --source ssh -o json
check "the table: eight NPUs, their figures" 'jq -e "length == 8 and all(.[]; .vendor == \"ascend\")
	and (.[0] | .name == \"910B3\" and .power_w == 97 and .temp_c == 32 and .memory_used_mib == 60056
	and .memory_total_mib == 65536 and .uuid == \"0000:C1:00.0\" and .driver == null)" <<<"$OUT" >/dev/null'

# verify: 910B3 is the catalogue's Ascend 910B, which is not the H100 rented.
expect_rc 14 g verify "$id" -o json
check "the table's 910B3 mapped, and a mismatch" 'jq -e "(.[] | select(.check == \"gpu_model\")
	| .promised == \"H100-SXM-80GB\" and .found == \"ASCEND-910B (910B3)\" and .result == \"mismatch\")
	and (.[] | select(.check == \"gpu_count\") | .result == \"ok\")" <<<"$OUT" >/dev/null'
vendor_double npu-smi
expect_rc 14 g verify "$id"
check "the blocks' Ascend 910B3 mapped too" '[[ $OUT == *gpu_model*H100-SXM-80GB*"ASCEND-910B (Ascend 910B3)"*mismatch* ]]'
check "stderr says so" '[[ $ERR == *"not what it was rented as"* ]]'
pass
