#!/usr/bin/env bash
# The sample history keeps the probe's vendor with each GPU: an AMD machine sampled over ssh
# (rocm-smi, the stand-in of tests/probes/bin) has "amd" on every history row, raw and
# bucketed, in JSON, csv and the table with --fields vendor, as the live metrics show it;
# a later API sample of the same GPUs does not erase it; an instance only ever sampled
# through the API has none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$(launch_fresh type=on-demand gpu=MI300X-192GB gpus=8 -- --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
vendor_double rocm-smi
expect_ok g metrics "$id" --source ssh -o json
check "the live sample: eight AMD GPUs" \
	'jq -e "length == 8 and all(.[]; .vendor == \"amd\")" <<<"$OUT" >/dev/null'

expect_ok g metrics "$id" --since 1d --step raw -o json
check "raw history: the vendor on every row" \
	'jq -e "length == 8 and all(.[]; .vendor == \"amd\" and .source == \"ssh\")" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --source api -o json
check "the API's sample names no vendor" 'jq -e "all(.[]; .vendor == null)" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --since 1d --step 1h -o json
# The simulator's clock runs 200 times faster: the two samples may fall in two hours,
# and an hour of it is 18 s, so the history asks for a day.
check "buckets: the vendor of the GPU's series, kept after the API's sample" \
	'jq -e "(map(.gpu) | unique | length) == 8 and all(.[]; .vendor == \"amd\")" <<<"$OUT" >/dev/null'
expect_ok g metrics "$id" --since 1d --step 1h -o csv
# The columns the live samples added since come after it: vendor is found by its name.
check "csv: a vendor column, amd" \
	'[ "$(awk -F, "NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"vendor\") c = i } NR == 2 { print \$c }" <<<"$OUT")" = amd ]'
COLUMNS=100 expect_ok g metrics "$id" --since 1d --step 1h --fields gpu,vendor,util_pct
check "the table with --fields vendor" '[[ $OUT == *VENDOR* && $OUT == *amd* ]]'
expect_ok g metrics "$id" --since 1d --step 1h
check "the default table leaves it out, as live metrics do" '[[ $OUT != *VENDOR* ]]'
check "stored with the series" \
	'[ "$(sqlite3 "$DB" "SELECT DISTINCT vendor FROM sample_series WHERE instance_id = '"'$id'"'")" = amd ]'

# Another instance, sampled only through the API: no vendor in its history.
other=$(launch_fresh type=on-demand gpu=MI300X-192GB gpus=8 -- --disk 1 --wait --timeout 60)
expect_ok g metrics "$other" --source api -o json
expect_ok g metrics "$other" --since 1d --step raw -o json
check "an API-only history: vendor null" \
	'jq -e "length > 0 and all(.[]; .vendor == null)" <<<"$OUT" >/dev/null'
pass
