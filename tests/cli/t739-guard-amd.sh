#!/bin/bash
# The instance guard's agent samples AMD GPUs where there is no nvidia-smi, with the probes'
# own command: amd-smi where rocm-smi fails (busy at 94%: nothing stopped), rocm-smi where it
# answers (every GPU at 0%: idle, and the instance stopped through the provider after
# idle.after).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guard.sh"

guard_vast_busy
vendor_doubles_clear
vendor_double rocm-smi ROCM_SMI_BROKEN=1
vendor_double amd-smi
guard_vast_instance t739
g config set label.t739.idle.after 4s >/dev/null
state() { sed -n "s/^$1=//p" "$dir/state" 2>/dev/null; }

expect_ok g guard install "$id"
wait_until 150 '[ "$(state util)" = 94 ] && [ "$(state verdict)" = busy ]' ||
	fail "no busy verdict from amd-smi: $(cat "$dir/state" "$dir/log" 2>/dev/null)"
check "amd-smi was asked" '[ "$(vendor_calls amd-smi)" -gt 0 ]'

vendor_double rocm-smi ROCM_SMI_FILE=amd/rocm-smi-mi300x-8.json
wait_until 150 '[ "$(state util)" = 0 ]' || fail "no reading from rocm-smi: $(cat "$dir/state")"
wait_until 300 '[ "$(state verdict)" = stopped ]' || fail "not stopped: $(cat "$dir/log")"
check "the stop went through vast's API" 'grep -q "stop-ordered idle" "$dir/log"'
pass
