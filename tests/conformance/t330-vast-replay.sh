#!/bin/bash
# Conformance of the vast dialect: the requests the official vast.ai CLI made in a recorded
# session (tests/data/vast-cli/, recorded by t333; see README.md for the client version) are
# replayed against `sim serve --dialect vast`, and every answer's status, Content-Type and
# JSON shape, and the fields the client reads, are checked.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1780000000	# the world the recording was made in
REPLAY_KEY=conformance-key
start_serve vast --api-key "$REPLAY_KEY"

# What the client reads of an offer (search offers' table and --raw, and gpurent's backend).
OFFER_FIELDS='["id","ask_contract_id","machine_id","host_id","num_gpus",
 "gpu_ram","gpu_total_ram","gpu_frac","cuda_max_good","compute_cap","pcie_bw","cpu_ghz",
 "cpu_cores","cpu_cores_effective","cpu_ram","disk_space","disk_bw","dph_base","dph_total",
 "min_bid","storage_cost","storage_total_cost","dlperf","dlperf_per_dphtotal","total_flops",
 "flops_per_dphtotal","score","inet_up","inet_down","inet_up_cost","inet_down_cost",
 "reliability","reliability2","duration","start_date","end_date","direct_port_count",
 "bw_nvlink","gpu_mem_bw"]'
OFFER_STRINGS='["gpu_name","gpu_arch","driver_version","verification","geolocation",
 "cpu_name","public_ipaddr","os_version"]'
OFFER_BOOLS='["verified","rentable","rented","is_bid","external","static_ip"]'
offer_ok="(keys | length >= 100) and
 ([$OFFER_FIELDS[] as \$k | .[\$k] | type == \"number\"] | all) and
 ([$OFFER_STRINGS[] as \$k | .[\$k] | type == \"string\"] | all) and
 ([$OFFER_BOOLS[] as \$k | .[\$k] | type == \"boolean\"] | all) and
 (.search | type == \"object\" and has(\"totalHour\")) and (.gpu_ids | type == \"array\")"

# What the client reads of an instance row: its table, --raw (which turns extra_env into an
# object and rewrites duration from start_date), -q, and gpurent's backend.
INSTANCE_NUMBERS='["id","machine_id","num_gpus","cpu_cores_effective","cpu_ram","disk_space",
 "dph_total","dph_base","storage_total_cost","inet_up","inet_down","reliability2","start_date",
 "gpu_ram","gpu_totalram"]'
INSTANCE_KEYS='["actual_status","intended_status","cur_state","next_state","status_msg",
 "label","gpu_name","gpu_util","gpu_temp","ssh_host","ssh_port","public_ipaddr","ports",
 "image_uuid","image_runtype","uptime_mins","duration","extra_env","is_bid","geolocation"]'
instance_ok="([$INSTANCE_NUMBERS[] as \$k | .[\$k] | type == \"number\"] | all) and
 ([$INSTANCE_KEYS[] as \$k | has(\$k)] | all) and
 (.extra_env | type == \"array\" and all(.[]; type == \"array\" and length == 2)) and
 (.ports | type == \"object\") and
 (.actual_status | IN(\"loading\",\"running\",\"stopped\",\"exited\",\"offline\",\"created\")) and
 (if .actual_status == \"running\" then (.gpu_util | type == \"number\") and
   (.ssh_port | type == \"number\") and (.ssh_host | type == \"string\") and
   (.ports[\"22/tcp\"][0].HostPort | type == \"string\") else true end)"

destroyed=()
declare -A labels intents
check_reply() {
	local id
	case "$METHOD $RPATH" in
	"GET /api/v0/gpu_names/unique/")
		want_status 200
		want_ctype application/json
		want_jq "a list of GPU names, without a key" \
		    '.gpu_names | type == "array" and length > 0 and all(.[]; type == "string")'
		;;
	"POST /api/v0/bundles/")
		want_status 200
		want_ctype application/json	# the client refuses anything else
		want_jq "an offers array within the limit" \
		    "(.offers | type == \"array\" and length > 0) and
		     (.offers | length) <= $(jq '.limit // 1000' "$TMP/request")"
		want_jq "every offer has the fields the client reads, typed" \
		    "all(.offers[]; $offer_ok)"
		want_jq "offers are about 2.4 KB each, as vast.ai's are" \
		    '(.offers | map(tojson | length) | add / length) > 2000'
		want_jq "the pricing mode asked for" \
		    "all(.offers[]; .is_bid == $(jq '.type == "bid"' "$TMP/request"))"
		;;
	"PUT /api/v0/asks/"*/)
		want_status 200
		want_ctype application/json
		want_jq "success with the new instance id" \
		    '.success == true and (.new_contract | type == "number") and
		     (.instance_api_key | type == "string")'
		;;
	"GET /api/v1/instances/")
		want_status 200
		want_ctype application/json
		want_jq "a page of instances" \
		    '.success == true and (.instances | type == "array") and
		     (.next_token == null or (.next_token | type == "string")) and
		     .instances_found == (.instances | length) and
		     (.total_instances | type == "number") and (.label_counts | type == "object")'
		want_jq "every row has what the client reads" "all(.instances[]; $instance_ok)"
		want_jq "no destroyed instance is listed" \
		    "[.instances[].id] - [$(IFS=,; echo "${destroyed[*]-}")] == [.instances[].id]"
		;;
	"GET /api/v0/instances/"*/)
		id=${RPATH#/api/v0/instances/}
		id=${id%/}
		want_status 200
		want_ctype application/json
		if [[ " ${destroyed[*]-} " == *" $id "* ]]; then
			want_jq "a destroyed instance is {\"instances\": null}" '.instances == null'
		else
			want_jq "one row under the plural key" \
			    ".instances | type == \"object\" and .id == $id and ($instance_ok)"
			if [ -n "${labels[$id]-}" ]; then
				want_jq "the label set before" ".instances.label == ${labels[$id]}"
			fi
			# A stop or start is recorded in any state, even while it loads (issue 28).
			if [ -n "${intents[$id]-}" ]; then
				want_jq "the intended status asked for last" \
				    ".instances.intended_status == ${intents[$id]}"
			fi
		fi
		;;
	"PUT /api/v0/instances/request_logs/"*/)
		want_status 200
		want_ctype application/json
		want_jq "a result_url to fetch the log from" \
		    '.success == true and (.result_url | startswith("http"))'
		;;
	"GET /simulated-logs/"*/)
		want_status 200
		want_ctype text/plain
		check "$COMMAND: the log is text" '[ -s "$TMP/reply" ]'
		;;
	"PUT /api/v0/instances/"*/)
		want_status 200
		want_ctype application/json
		want_jq "success" '.success == true'
		if jq -e 'has("label")' "$TMP/request" >/dev/null; then
			want_jq "a label change answers a msg" '.msg | type == "string"'
			id=${RPATH#/api/v0/instances/}
			labels[${id%/}]=$(jq -c .label "$TMP/request")
		fi
		if jq -e 'has("state")' "$TMP/request" >/dev/null; then
			id=${RPATH#/api/v0/instances/}
			intents[${id%/}]=$(jq -c .state "$TMP/request")
		fi
		;;
	"DELETE /api/v0/instances/"*/)
		want_status 200
		want_ctype application/json
		want_jq "success" '.success == true'
		id=${RPATH#/api/v0/instances/}
		destroyed+=("${id%/}")
		;;
	"GET /api/v0/users/current")
		want_status 200
		want_ctype application/json
		# The client deletes api_key before showing the rest: without it, it crashes.
		want_jq "the account object the client shows" \
		    '(.api_key | type == "string") and (.credit | type == "number") and
		     (.balance | type == "number") and (.id | type == "number")'
		want_jq "every field of the client's user table" \
		    '["balance","balance_threshold","balance_threshold_enabled","billaddress_city",
		      "billaddress_country","billaddress_line1","billaddress_line2","billaddress_zip",
		      "billed_expected","billed_verified","billing_creditonly","can_pay","credit",
		      "email","email_verified","fullname","got_signup_credit","has_billing",
		      "has_payout","id","last4","paid_expected","paid_verified",
		      "password_resettable","paypal_email","ssh_key","user","username"] as $k |
		     . as $u | all($k[]; . as $f | $u | has($f))'
		;;
	esac
}

replay_recording "$SRCDIR/tests/data/vast-cli/requests.jsonl"
check "the recording covers create, stop/start, label, logs, destroy" '[ "$REPLAYED" -ge 20 ]'

# Beyond the recording: what clients read on errors.
STATUS=$(curl -s -o "$TMP/reply" -D "$TMP/headers" -w '%{http_code}' \
    -H 'Authorization: Bearer wrong' "$SERVE_URL/api/v0/users/current/")
check "a wrong key is 401 (got $STATUS)" '[ "$STATUS" = 401 ]'
check "with vast's msg" 'jq -e ".msg == \"Invalid user key\"" "$TMP/reply" >/dev/null'
start_serve vast --api-key "$REPLAY_KEY" --fail-429 100
STATUS=$(curl -s -o "$TMP/reply" -D "$TMP/headers" -w '%{http_code}' \
    -H "Authorization: Bearer $REPLAY_KEY" "$SERVE_URL/api/v1/instances/")
check "a rate-limited call is 429 (got $STATUS)" '[ "$STATUS" = 429 ]'
check "vast sends no Retry-After" '! grep -qi "^retry-after" "$TMP/headers"'
check "and a plain-text body" 'grep -qi "^content-type: text/plain" "$TMP/headers"'
pass
