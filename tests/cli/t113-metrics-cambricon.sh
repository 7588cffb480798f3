#!/usr/bin/env bash
# metrics and verify on a Cambricon machine: the sshd "instance" has cnmon (the stand-in of
# tests/probes/bin, which writes cnmon_info.json into its working directory as the real one
# does) and no nvidia-smi. The vendor, every figure and null for the rest, a card without
# power, the private directory gone after each sample, MLU370-X8 mapped by verify.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand gpu=H100-SXM-80GB gpus=8 -- --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

vendor_double cnmon CNMON_LOG="$TMP/cnmon.dirs"
expect_ok g metrics "$id" --source ssh -o json
check "eight MLUs over ssh" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .vendor == \"cambricon\")" <<<"$OUT" >/dev/null'
check "every figure of card 6" 'jq -e ".[6] | .gpu == 6 and .util_pct == 30
	and .memory_used_mib == 6656 and .memory_total_mib == 24576 and .temp_c == 49
	and .power_w == 66 and .name == \"MLU370-X8\" and .uuid == \"U00000054009\"" <<<"$OUT" >/dev/null'
check "card 3 reports no power: null" 'jq -e ".[3].power_w == null and .[3].util_pct == 15" <<<"$OUT" >/dev/null'
check "what cnmon does not report is null, not zero" 'jq -e "all(.[]; .power_limit_w == null
	and .memory_free_mib == null and .clock_sm_mhz == null and .fan_pct == null
	and .pcie_gen == null and .ecc_uncorrected == null and .mig == null and .cuda == null)" <<<"$OUT" >/dev/null'
check "cnmon wrote into a directory of its own, removed after" \
	'[ "$(wc -l <"$TMP/cnmon.dirs")" = 1 ] && d=$(cat "$TMP/cnmon.dirs") && [[ $d == /* && $d != "$HOME" ]] && [ ! -e "$d" ]'

# --follow: a fresh directory for each sample, none left behind.
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 2 -o json
check "two samples of eight" 'jq -e -s "length == 16 and all(.[]; .vendor == \"cambricon\")" <<<"$OUT" >/dev/null'
check "no directory left" 'while read -r d; do [ ! -e "$d" ] || exit 1; done <"$TMP/cnmon.dirs"'

expect_rc 14 g verify "$id" -o json
check "MLU370-X8 mapped to the catalogue's MLU370, and a mismatch" 'jq -e "(.[] | select(.check == \"gpu_model\")
	| .found == \"MLU370 (MLU370-X8)\" and .result == \"mismatch\")" <<<"$OUT" >/dev/null'
pass
