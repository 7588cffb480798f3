#!/usr/bin/env bash
# An AMD machine with amd-smi and no rocm-smi (ROCm 6+ deprecates rocm-smi; a ROCm 7 image
# may lack it): the sampler still finds the vendor, and amd-smi's figures come through, once
# a sample over one connection. With both tools, rocm-smi answers and amd-smi is not run.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand gpu=MI300X-192GB -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

vendor_double amd-smi
check "amd-smi alone on the instance" '[ ! -e "$TMP/remote-bin/rocm-smi" ] && [ ! -e "$TMP/remote-bin/nvidia-smi" ]'
expect_ok g metrics "$id" --source ssh -o json
check "two AMD GPUs from amd-smi" \
	'jq -e "length == 2 and all(.[]; .source == \"ssh\" and .vendor == \"amd\")" <<<"$OUT" >/dev/null'
check "amd-smi's figures" 'jq -e ".[0] | .gpu == 0 and .util_pct == 94 and .memory_util_pct == 61
	and .memory_used_mib == 17153 and .memory_total_mib == 196592 and .power_w == 612" <<<"$OUT" >/dev/null'
check "N/A and what amd-smi metric does not say: null" 'jq -e "(.[1] | .power_w == null
	and .memory_util_pct == null and .util_pct == 0) and all(.[]; .temp_c == null
	and .name == null and .power_limit_w == null and .fan_pct == null)" <<<"$OUT" >/dev/null'
check "amd-smi ran once" '[ "$(vendor_calls amd-smi)" = 1 ]'

close_masters
conns0=$(sshd_connections)
expect_ok g metrics "$id" --source ssh --follow --interval 1 --count 2 -o json
check "--follow: two samples of two" 'jq -e -s "length == 4 and all(.[]; .vendor == \"amd\")" <<<"$OUT" >/dev/null'
check "one connection, amd-smi once a sample" \
	'[ $(( $(sshd_connections) - conns0 )) = 1 ] && [ "$(vendor_calls amd-smi)" = 3 ]'

# Both tools: rocm-smi first, as the command tries them.
vendor_double amd-smi
vendor_double rocm-smi
expect_ok g metrics "$id" --source ssh -o json
check "rocm-smi answers, amd-smi is not run" 'jq -e "length == 8 and .[0].name == \"AMD Instinct MI300X\"" <<<"$OUT" >/dev/null &&
	[ "$(vendor_calls amd-smi)" = 0 ] && [ "$(vendor_calls rocm-smi)" = 1 ]'
pass
