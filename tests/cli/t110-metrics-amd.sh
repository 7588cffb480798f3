#!/usr/bin/env bash
# metrics and verify on an AMD machine: the sshd "instance" has rocm-smi (the stand-in of
# tests/probes/bin replaying tests/data/probes/amd/) and no nvidia-smi. The vendor, every
# figure the recording has and null for the rest, a second die without power of its own,
# --follow over one connection, verify mapping rocm-smi's Card Series through the catalogue.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

mi300x8() { g offers type=on-demand gpu=MI300X-192GB gpus=8 -o ids -n 1; }
id=$(g launch "$(mi300x8)" --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

vendor_double rocm-smi
check "no nvidia-smi on the instance" '[ ! -e "$TMP/remote-bin/nvidia-smi" ]'
expect_ok g metrics "$id" --source ssh -o json
check "eight AMD GPUs over ssh" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .vendor == \"amd\")" <<<"$OUT" >/dev/null'
check "every figure rocm-smi reports" 'jq -e ".[4] | .instance_id == \"$id\" and .gpu == 4
	and .util_pct == 0 and .memory_util_pct == 0 and .memory_used_mib == 20520
	and .memory_total_mib == 196592 and .temp_c == 37 and .memory_temp_c == 33
	and .power_w == 133 and .power_limit_w == 750 and .clock_sm_mhz == 132
	and .clock_mem_mhz == 900 and .name == \"AMD Instinct MI300X\"
	and .uuid == \"0x517dce3f6082a345\" and .driver == \"6.8.5\"" <<<"$OUT" >/dev/null'
check "what it does not report is null, not zero" 'jq -e "all(.[]; .fan_pct == null
	and .memory_free_mib == null and .power_enforced_w == null and .clock_sm_max_mhz == null
	and .pstate == null and .pcie_gen == null and .pcie_width == null and .encoder_pct == null
	and .decoder_pct == null and .ecc_uncorrected == null and .clock_event_reasons == null
	and .compute_mode == null and .mig == null and .xid == null and .cuda == null)" <<<"$OUT" >/dev/null'
check "rocm-smi ran once" '[ "$(vendor_calls rocm-smi)" = 1 ]'
expect_ok g metrics "$id" -o json
check "auto: ssh where rocm-smi answers" 'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .vendor == \"amd\")" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --source api -o json
check "the API's figures name no vendor" 'jq -e "all(.[]; .source == \"api\" and .vendor == null)" <<<"$OUT" >/dev/null'
COLUMNS=80 expect_ok g metrics "$id" --source ssh --fields gpu,vendor,name,util_pct
check "the table: vendor and name" '[[ $OUT == *VENDOR*NAME* && $OUT == *amd*"AMD Instinct MI300X"* ]]'

# An MI250's second die reports no power of its own: null, not 0.
vendor_double rocm-smi ROCM_SMI_FILE=amd/rocm-smi-mi250-2.json
expect_ok g metrics "$id" --source ssh -o json
check "MI250: two dies, the second without power" 'jq -e "length == 2 and .[0].power_w == 102
	and .[1].power_w == null and .[1].memory_used_mib == 11 and .[0].util_pct == 50" <<<"$OUT" >/dev/null'

# --follow: one connection, one rocm-smi run per sample.
vendor_double rocm-smi
close_masters
sessions() { grep -c "Starting session" "$TMP/ssh/sshd.log"; }
conns0=$(sshd_connections)
sess0=$(sessions)
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 3 -o json
check "3 samples of 8 AMD GPUs, one a line" '[ "$(wc -l <<<"$OUT")" = 24 ] &&
	jq -e -s "length == 24 and all(.[]; .vendor == \"amd\" and .memory_total_mib == 196592)" <<<"$OUT" >/dev/null'
check "one ssh connection, one session" \
	'[ $(( $(sshd_connections) - conns0 )) = 1 ] && [ $(( $(sessions) - sess0 )) = 1 ]'
check "rocm-smi ran once a sample" '[ "$(vendor_calls rocm-smi)" = 3 ]'

# verify: rocm-smi's "AMD Instinct MI300X" is the catalogue's MI300X-192GB.
expect_ok g verify "$id" -o json
check "verify: model, count and memory as rented" 'jq -e "(map(select(.result == \"mismatch\")) | length) == 0
	and (.[] | select(.check == \"gpu_model\") | .result == \"ok\" and .found == \"MI300X-192GB (AMD Instinct MI300X)\")
	and (.[] | select(.check == \"gpu_count\") | .result == \"ok\" and .found == \"8\")
	and (.[] | select(.check == \"memory_per_gpu\") | .result == \"ok\" and .found == \"196592 MiB (least)\")
	and (.[] | select(.check == \"driver\") | .found == \"6.8.5\")
	and (.[] | select(.check == \"cuda\") | .found == null)" <<<"$OUT" >/dev/null'
vendor_double rocm-smi ROCM_SMI_FILE=amd/rocm-smi-mi250-2.json
expect_rc 14 g verify "$id" -o json
check "two MI250 dies where eight MI300X were rented" 'jq -e "(map(select(.result == \"mismatch\")) | map(.check)) == [\"gpu_model\", \"gpu_count\", \"memory_per_gpu\"]
	and (.[] | select(.check == \"gpu_model\") | .found == \"MI250 (AMD INSTINCT MI250 (MCM) OAM AC MBA)\")" <<<"$OUT" >/dev/null'

# A broken rocm-smi: its words, auto falls back to the API.
vendor_double rocm-smi ROCM_SMI_BROKEN=1
expect_rc 1 g metrics "$id" --source ssh
check "the failure is reported" '[ -n "$ERR" ]'
expect_ok g metrics "$id" -o json
check "auto: the API after a tool failure" 'jq -e "all(.[]; .source == \"api\")" <<<"$OUT" >/dev/null'
pass
