#!/bin/bash
# Conformance of the ppio dialect: PPIO GPU API v2 calls as its documented examples make them
# (tests/data/ppio-api/, see README.md) replayed against `sim serve --dialect ppio`; every
# answer's status, Content-Type and shape checked: products with integer prices scaled by
# pricing.precision, instances with status {status, error, message}, {"data", "next_cursor",
# "has_more"} pages, {} for actions, and errors as {code, reason, message, metadata}.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1780000000
REPLAY_KEY=conformance-key
start_serve ppio --api-key "$REPLAY_KEY"

price_ok='(.base_price | type == "number" and . == floor and . >= 0) and
 (.final_price | type == "number" and . == floor and . >= 0) and .unit == "per_hour"'
product_ok="(.id | type == \"string\") and (.name | type == \"string\") and .type == \"gpu\" and
 .category == \"instance\" and (.region_ids | type == \"array\" and all(.[]; test(\"^cn-\"))) and
 (.resource_spec.gpu | (.name | type == \"string\") and (.memory_gb > 0) and .min >= 1 and
   .max >= .min and (.available | type == \"number\") and (.max_available | type == \"number\")) and
 (.resource_spec.rootfs | .min_gb <= .max_gb) and
 (.pricing | (.precision | type == \"number\") and (.postpaid | $price_ok) and
   (.spot == null or (.spot | $price_ok)) and (.prepaid | type == \"array\")) and
 (.billing_methods | index(\"postpaid\") != null) and (.deployable | type == \"boolean\")"
instance_ok='(.id | test("^[0-9a-f]{10}$")) and (.name | type == "string") and .type == "gpu" and
 (.product_id | type == "string") and (.image | type == "string") and
 (.billing.mode | IN("postpaid", "spot")) and
 (.resource_specs | (.gpu_num >= 1) and (.rootfs_size_gb | type == "number")) and
 (.region | test("^cn-")) and
 (.status | (.status | IN("toCreate", "creating", "pulling", "running", "toStart", "starting",
   "toStop", "stopping", "exited", "toRemove", "removing", "removed")) and
   (.error | type == "string") and (.message | type == "string")) and
 (.created_at | type == "number") and (.last_started_at | type == "number") and
 (.last_stopped_at | type == "number")'
error_ok='(keys == ["code", "message", "metadata", "reason"]) and (.code | type == "number") and
 (.message | type == "string")'

check_reply() {
	want_ctype application/json
	case "$COMMAND" in
	"list GPU products"*)
		want_status 200
		want_jq "an array of products" "(keys == [\"data\"]) and (.data | length > 0) and all(.data[]; $product_ok)"
		want_jq "a product of one RTX 3090" '.data | map(.id) | index("prod-rtx3090-24gb") != null'
		;;
	"list products without"*)
		want_status 400
		want_jq "VALIDATOR_PARAM" "$error_ok and .reason == \"VALIDATOR_PARAM\" and .code == 400"
		;;
	"create a GPU instance"*)
		want_status 200
		want_jq "the new id alone" 'keys == ["id"] and .id == "0000000001"'
		;;
	"list instances"* | "list stopped instances")
		want_status 200
		want_jq "a page" "(keys == [\"data\", \"has_more\", \"next_cursor\"]) and
		    (.next_cursor | type == \"string\") and (.has_more | type == \"boolean\") and
		    all(.data[]; $instance_ok and has(\"tools\") | not)"
		if [ "$COMMAND" = "list stopped instances" ]; then
			want_jq "the stopped one, exited" '[.data[].status.status] == ["exited"]'
		else
			want_jq "the new one, being created" '.data[0].status.status == "creating"'
		fi
		;;
	"get the instance"* | "get the started instance")
		want_status 200
		want_jq "running, with its ssh command" "$instance_ok and .status.status == \"running\" and
		    (.tools.ssh.command | test(\"^ssh -p [0-9]+ root@\")) and .last_started_at > 0"
		;;
	"stop the instance" | "start the instance" | "release the instance")
		want_status 200
		want_jq "an empty object" '. == {}'
		;;
	"get the released instance")
		want_status 400
		want_jq "RESOURCE_NOT_FOUND, as HTTP 400 (ppio.md 5.3)" "$error_ok and .reason == \"RESOURCE_NOT_FOUND\""
		;;
	"create from a product"*)
		want_status 400
		want_jq "RESOURCE_NOT_FOUND" "$error_ok and .reason == \"RESOURCE_NOT_FOUND\""
		;;
	"create without an image" | "list with a cursor"*)
		want_status 400
		want_jq "VALIDATOR_PARAM" "$error_ok and .reason == \"VALIDATOR_PARAM\""
		;;
	esac
}

replay_recording "$SRCDIR/tests/data/ppio-api/requests.jsonl"

# Beyond the recording: a missing or wrong key is 401 UNAUTHORIZED.
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' "$SERVE_URL/gpus/v2/instances")
check "no key is 401 (got $STATUS)" '[ "$STATUS" = 401 ]'
check "with UNAUTHORIZED" 'jq -e ".reason == \"UNAUTHORIZED\" and .code == 401" "$TMP/reply" >/dev/null'
# Prices are the simulator's at 7.2 yuan a dollar, to the yuan's thousandth (the simulator of
# the server's world, where the replay rented machines).
usd=$(serve_g ppio --provider sim -o json offers gpu=rtx3090 gpus=1 type=on-demand 2>/dev/null |
    jq '[.[].price_hour] | min')
cny=$(curl -s -H "Authorization: Bearer $REPLAY_KEY" \
    "$SERVE_URL/gpus/v2/products?type=gpu&category=instance" |
    jq '.data[] | select(.id == "prod-rtx3090-24gb") | .pricing.postpaid.final_price')
check "7.2 CNY per USD ($usd USD, $cny/1000 CNY)" \
    '[ "$(jq -n "($usd * 7.2 * 1000 | round) == $cny")" = true ]'
pass
