#!/bin/bash
# Conformance of the lambda dialect: the Cloud API v1 calls of Lambda's documented examples
# for an instance's life (tests/data/lambda-api/, see README.md) replayed against
# `sim serve --dialect lambda`; every answer's status, Content-Type and shape checked: the
# {"data": ...} envelope with nothing beside it, {"error": {code, message}} on failure.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1780000000
REPLAY_KEY=conformance-key
start_serve lambda --api-key "$REPLAY_KEY"

region_ok='(.name | type == "string") and (.description | type == "string")'
type_ok='(.name | test("^gpu_[0-9]+x_")) and (.description | type == "string") and
 (.gpu_description | type == "string") and (.price_cents_per_hour | type == "number") and
 (.specs | (.vcpus | type == "number") and (.memory_gib | type == "number") and
  (.storage_gib | type == "number") and (.gpus | type == "number"))'
instance_ok="(.id | test(\"^[0-9a-f]{32}\$\")) and
 (.status | IN(\"booting\",\"active\",\"unhealthy\",\"terminating\",\"terminated\",\"preempted\")) and
 (.ssh_key_names | type == \"array\") and (.file_system_names | type == \"array\") and
 (.region | $region_ok) and (.instance_type | $type_ok) and
 (.actions | all(.migrate, .rebuild, .restart, .cold_reboot, .terminate;
   .available | type == \"boolean\")) and
 (.tags | type == \"array\") and (.jupyter_url | type == \"string\") and
 (if .status == \"active\" then (.ip | type == \"string\") and (.hostname | type == \"string\")
  else true end)"
envelope='keys == ["data"]'

terminated=()
check_reply() {
	local id
	want_ctype application/json
	case "$METHOD $RPATH" in
	"GET /api/v1/instance-types")
		want_status 200
		want_jq "a map of type name to {instance_type, regions_with_capacity_available}" \
		    "$envelope and (.data | type == \"object\" and length > 0) and
		     all(.data | to_entries[]; .key == .value.instance_type.name and
		      (.value.instance_type | $type_ok) and
		      all(.value.regions_with_capacity_available[]; $region_ok))"
		;;
	"GET /api/v1/regions")
		want_status 200
		want_jq "an array of regions" "$envelope and (.data | length > 0) and all(.data[]; $region_ok)"
		;;
	"GET /api/v1/ssh-keys")
		want_status 200
		want_jq "an array of {id, name, public_key}" \
		    "$envelope and all(.data[]; (.id | test(\"^[0-9a-f]{32}\$\")) and
		      (.name | type == \"string\") and (.public_key | type == \"string\"))"
		;;
	"GET /api/v1/file-systems" | "GET /api/v1/firewall-rules")
		want_status 200
		want_jq "an array" "$envelope and (.data | type == \"array\")"
		;;
	"POST /api/v1/instance-operations/launch")
		want_status 200
		want_jq "one instance id" \
		    "$envelope and (.data.instance_ids | length == 1) and
		     (.data.instance_ids[0] | test(\"^[0-9a-f]{32}\$\"))"
		;;
	"GET /api/v1/instances")
		want_status 200
		want_jq "an array of instances" "$envelope and all(.data[]; $instance_ok)"
		want_jq "terminated instances drop out" \
		    "[.data[].id] - [$(printf '"%s",' "${terminated[@]-}" | sed 's/,$//')] == [.data[].id]"
		;;
	"GET /api/v1/instances/"*)
		id=${RPATH#/api/v1/instances/}
		if [[ " ${terminated[*]-} " == *" $id "* ]]; then
			want_status 404
			want_jq "global/object-does-not-exist" \
			    '.error.code == "global/object-does-not-exist" and (.error.message | type == "string")'
		else
			want_status 200
			want_jq "the instance, active with its address" \
			    "$envelope and .data.id == \"$id\" and (.data | $instance_ok) and
			     .data.status == \"active\" and (.data.ip | type == \"string\")"
		fi
		;;
	"POST /api/v1/instances/"*)
		want_status 200
		want_jq "the renamed instance" \
		    "$envelope and (.data | $instance_ok) and .data.name == $(jq .name "$TMP/request")"
		;;
	"POST /api/v1/instance-operations/restart")
		want_status 200
		want_jq "restarted_instances" \
		    "$envelope and (.data.restarted_instances | length == 1) and
		     all(.data.restarted_instances[]; $instance_ok)"
		;;
	"POST /api/v1/instance-operations/terminate")
		want_status 200
		want_jq "terminated_instances, each terminating" \
		    "$envelope and all(.data.terminated_instances[]; ($instance_ok) and
		      .status == \"terminating\")"
		terminated+=($(jq -r '.instance_ids[]' "$TMP/request"))
		;;
	esac
}

replay_recording "$SRCDIR/tests/data/lambda-api/requests.jsonl"

# Beyond the recording: errors as clients read them.
STATUS=$(curl -s -o "$TMP/reply" -D "$TMP/headers" -w '%{http_code}' "$SERVE_URL/api/v1/instances")
check "no key is 401 (got $STATUS)" '[ "$STATUS" = 401 ]'
check "with global/invalid-api-key" \
    'jq -e ".error.code == \"global/invalid-api-key\"" "$TMP/reply" >/dev/null'
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' -u "$REPLAY_KEY:" "$SERVE_URL/api/v1/instances")
check "the key as a Basic user name is accepted (got $STATUS)" '[ "$STATUS" = 200 ]'
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' -H "Authorization: Bearer $REPLAY_KEY" \
    -d '{"region_name":"asia-south-1","instance_type_name":"gpu_1x_a10","ssh_key_names":["sim-key"],"quantity":2}' \
    "$SERVE_URL/api/v1/instance-operations/launch")
check "quantity 2 is refused with global/invalid-parameters (got $STATUS)" \
    '[ "$STATUS" = 400 ] && jq -e ".error.code == \"global/invalid-parameters\"" "$TMP/reply" >/dev/null'
start_serve lambda --api-key "$REPLAY_KEY" --fail-429 100
curl -s -o /dev/null -D "$TMP/headers" -H "Authorization: Bearer $REPLAY_KEY" \
    "$SERVE_URL/api/v1/instances"
check "a 429 carries no Retry-After: Lambda documents none" '! grep -qi "^retry-after" "$TMP/headers"'
pass
