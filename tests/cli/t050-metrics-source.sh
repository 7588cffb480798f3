#!/usr/bin/env bash
# metrics --source: the machine's own nvidia-smi over ssh (a test double replaying recorded
# outputs on the sshd "instance") against the provider's API, every new field in JSON with
# its source, auto falling back to the API where the machine has no GPU tool, and --host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand gpus=1 -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

# No GPU tool on the machine yet: auto is the API's figures, ssh says why it has none.
expect_ok g metrics "$id" -o json
check "auto without a tool: the API" 'jq -e "length >= 1 and all(.[]; .source == \"api\")" <<<"$OUT" >/dev/null'
expect_rc 12 g metrics "$id" --source ssh
check "ssh without a tool says so" '[[ $ERR == *"no GPU tool"* ]]'

nvidia_double h100x8.txt
expect_ok g metrics "$id" --source ssh -o json
check "eight GPUs over ssh" 'jq -e "length == 8 and all(.[]; .source == \"ssh\")" <<<"$OUT" >/dev/null'
check "the probe's fields" 'jq -e ".[0] | .instance_id == \"$id\" and .gpu == 0 and .util_pct == 2
	and .memory_used_mib == 72790 and .memory_total_mib == 81559 and .memory_free_mib == 8247
	and .temp_c == 35 and .memory_temp_c == 41 and .power_w == 134 and .power_limit_w == 700
	and .power_enforced_w == 700 and .clock_sm_mhz == 1980 and .clock_mem_mhz == 2619
	and .clock_sm_max_mhz == 1980 and .fan_pct == null and .pstate == \"P0\"
	and .pcie_gen == 5 and .pcie_width == 16 and .encoder_pct == 0 and .decoder_pct == 0
	and .ecc_uncorrected == 0 and .clock_event_reasons == \"0x0000000000000000\"
	and .compute_mode == \"default\" and .mig == false and .xid == null
	and .name == \"NVIDIA H100 80GB HBM3\" and .driver == \"550.90.07\" and .cuda == \"12.4\"
	and (.uuid | startswith(\"GPU-\"))" <<<"$OUT" >/dev/null'
check "asked the driver for its fields once, then queried once" \
	'[ "$(grep -c -- --help-query-gpu "$TMP/remote-bin/nvidia-smi.log")" = 1 ] && [ "$(nvidia_queries)" = 1 ]'
expect_ok g metrics "$id" -o json
check "auto where the machine answers: ssh" 'jq -e "length == 8 and all(.[]; .source == \"ssh\")" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --source api -o json
check "--source api: the provider's figures, no probe fields" \
	'jq -e "length >= 1 and all(.[]; .source == \"api\" and .clock_sm_mhz == null and .uuid == null)" <<<"$OUT" >/dev/null'

# The table: units in the headers, fits 80 columns; --fields all shows every field.
COLUMNS=80 expect_ok g metrics "$id" --source ssh
check "units in the headers" '[[ $OUT == *"UTIL %"*"MEM MiB"*"W"* ]]'
check "no wider than 80" '[ "$(awk "{ print length }" <<<"$OUT" | sort -n | tail -1)" -le 80 ]'
expect_ok g metrics "$id" --source ssh --fields all -o csv
check "--fields all: every field" '[[ $(head -1 <<<"$OUT") == *source*cuda*clock_sm_mhz*pcie_gen*pci_bus_id*xid*xid_count ]]'

# An old driver: no clocks_event_reasons, no MIG; asking for them would fail the query.
nvidia_double old-driver-440.txt
expect_ok g metrics "$id" --source ssh -o json
check "old driver: fields it has, reasons under the old name, no mig" \
	'jq -e ".[0] | .name == \"GeForce RTX 2080\" and .fan_pct == 100 and .clock_event_reasons == \"0x0000000000000000\" and .mig == null and .cuda == \"10.2\"" <<<"$OUT" >/dev/null'
check "the query named only fields the driver listed" \
	'grep -- --query-gpu "$TMP/remote-bin/nvidia-smi.log" | grep -v -e clocks_event_reasons -e mig.mode >/dev/null'

# MIG: whole-GPU utilisation unknown (null), memory known.
nvidia_double a100-mig.txt
expect_ok g metrics "$id" --source ssh -o json
check "MIG GPU: util null, mig true" 'jq -e ".[1] | .mig == true and .util_pct == null and .memory_used_mib == 39402" <<<"$OUT" >/dev/null'

# Hostile output: nothing reaches the terminal raw, the good row still comes through.
nvidia_double hostile.txt
expect_ok g metrics "$id" --source ssh --fields all
check "no escape sequence in the table" '! grep -q $'"'"'\x1b'"'"' <<<"$OUT"'
check "the good row" '[[ $OUT == *GPU-ok-row* ]]'

# A broken driver: ssh says what nvidia-smi said; auto falls back to the API.
nvidia_double driver-gone.txt
expect_rc 1 g metrics "$id" --source ssh
check "the tool's words" '[[ $ERR == *"couldn"*"communicate"* ]]'
expect_ok g metrics "$id" -o json
check "auto: the API after a tool failure" 'jq -e "all(.[]; .source == \"api\")" <<<"$OUT" >/dev/null'

# The host, over ssh only.
expect_ok g metrics "$id" --host -o json
check "host figures" 'jq -e ".[0] | .instance_id == \"$id\" and .memory_total_mib > 0 and .disk_total_mib > 0 and .load1 != null" <<<"$OUT" >/dev/null'
expect_rc 2 g metrics "$id" --host --source api
expect_rc 2 g metrics "$id" --source bogus
check "a bad source is a usage error" '[[ $ERR == *"auto, api or ssh"* ]]'
pass
