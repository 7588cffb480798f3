#!/bin/bash
# Conformance of the runpod dialect: the GraphQL and REST v1 calls runpodctl and
# runpod-python make for a pod's life (get, create, stop, start, remove; tests/data/runpod-cli/,
# written from their documented requests, see README.md) replayed against
# `sim serve --dialect runpod`, every answer's status, Content-Type and shape checked.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1780000000
REPLAY_KEY=conformance-key
start_serve runpod --api-key "$REPLAY_KEY"

# A GraphQL pod as runpodctl's and runpod-python's queries read it.
gql_pod_ok='(.id | type == "string" and length == 14) and
 (.desiredStatus | IN("RUNNING","EXITED")) and (.costPerHr | type == "number") and
 (.gpuCount | type == "number") and (.imageName | type == "string") and
 (.machineId | type == "string" and length == 12) and (.ports | type == "string") and
 (.env | type == "array") and (.machine.podHostId | type == "string") and
 (.machine.gpuDisplayName | type == "string") and
 (if .desiredStatus == "RUNNING" and .runtime != null then
   (.runtime.uptimeInSeconds | type == "number") and (.runtime.ports | type == "array") and
   all(.runtime.gpus[]; (.id | type == "string")) else .runtime == null end)'
# A REST v1 pod: the spec's names and runpodctl's spellings both.
rest_pod_ok='(.id | type == "string" and length == 14) and
 (.desiredStatus | IN("RUNNING","EXITED")) and (.image == .imageName) and
 (.gpu.id == .gpuTypeId) and (.gpu.count == .gpuCount) and (.costPerHr | type == "number") and
 (.ports | type == "array") and (.env | type == "object") and
 (.portMappings | type == "object") and (.publicIp | type == "string") and
 (.createdAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")) and (.machineId | type == "string") and
 (.uptimeSeconds | type == "number") and (.interruptible | type == "boolean")'

terminated=()
check_reply() {
	local op id
	case "$METHOD $RPATH" in
	"POST /graphql")
		want_ctype application/json
		op=$(jq -r .query "$TMP/request" | grep -oE 'gpuTypes|podFindAndDeployOnDemand|podStop|podResume|podTerminate|myself|pod\(' | head -1)
		id=$(jq -r .query "$TMP/request" | grep -oE 'podId: "[a-z0-9]+"' | cut -d'"' -f2)
		case $op in
		gpuTypes)
			want_status 200
			want_jq "gpuTypes answers without a key, with lowestPrice per type" \
			    '(.data.gpuTypes | type == "array" and length > 0) and
			     all(.data.gpuTypes[]; (.id | type == "string") and
			      (.displayName | type == "string") and (.memoryInGb | type == "number"))'
			;;
		myself)
			want_status 200
			want_jq "myself is the user" '.data.myself.id | type == "string"'
			jq -r .query "$TMP/request" | grep -q clientBalance &&
			want_jq "myself with the balance and spend runpodctl prints" \
			    '(.data.myself.clientBalance | type == "number") and
			     (.data.myself.currentSpendPerHr | type == "number") and
			     (.data.myself.spendLimit | type == "number")'
			if jq -r .query "$TMP/request" | grep -q pods; then
				want_jq "myself.pods lists pods in the GraphQL shape" \
				    "(.data.myself.pods | length > 0) and all(.data.myself.pods[]; $gql_pod_ok)"
			fi
			;;
		podFindAndDeployOnDemand)
			want_status 200
			want_jq "the new pod, RUNNING at once (legacy runpodctl insists)" \
			    ".errors == null and (.data.podFindAndDeployOnDemand | $gql_pod_ok) and
			     .data.podFindAndDeployOnDemand.desiredStatus == \"RUNNING\""
			;;
		podStop)
			want_status 200
			want_jq "the pod, EXITED (legacy runpodctl insists)" \
			    '.errors == null and .data.podStop.desiredStatus == "EXITED" and
			     .data.podStop.id == "'"$id"'"'
			;;
		podResume)
			want_status 200
			want_jq "the pod, RUNNING" \
			    '.errors == null and .data.podResume.desiredStatus == "RUNNING" and
			     (.data.podResume.machineId | type == "string")'
			;;
		podTerminate)
			want_status 200
			want_jq "null data and no errors" '.errors == null and .data.podTerminate == null'
			terminated+=("$id")
			;;
		"pod(")
			want_status 200
			if [[ " ${terminated[*]-} " == *" $id "* ]]; then
				want_jq "a terminated pod is null" '.data.pod == null'
			else
				want_jq "the pod, with its runtime once up" \
				    ".data.pod.id == \"$id\" and (.data.pod | $gql_pod_ok) and
				     (.data.pod.runtime.ports | any(.privatePort == 22 and .isIpPublic))"
			fi
			;;
		*)
			fail "$COMMAND: a GraphQL operation the checks do not know"
			;;
		esac
		;;
	"GET /v1/pods")
		want_status 200
		want_ctype application/json
		want_jq "a bare array of pods in the v1 shape" "type == \"array\" and all(.[]; $rest_pod_ok)"
		want_jq "no terminated pod is listed" \
		    "[.[].id] - [$(printf '"%s",' "${terminated[@]-}" | sed 's/,$//')] == [.[].id]"
		;;
	"GET /v1/pods/"*)
		id=${RPATH#/v1/pods/}
		want_ctype application/json
		if [[ " ${terminated[*]-} " == *" $id "* ]]; then
			want_status 404
			want_jq "an error body with the text" '.error | type == "string"'
		else
			want_status 200
			want_jq "the pod in the v1 shape" ".id == \"$id\" and ($rest_pod_ok)"
			want_jq "with its machine when asked, and its ssh port once up" \
			    '(.machine.dataCenterId | type == "string") and
			     (.portMappings["22"] | type == "number") and (.publicIp != "")'
		fi
		;;
	"POST /v1/pods/"*/stop)
		want_status 200
		want_ctype application/json
		want_jq "the pod, EXITED" ".desiredStatus == \"EXITED\" and ($rest_pod_ok)"
		;;
	"POST /v1/pods/"*/start)
		want_status 200
		want_ctype application/json
		want_jq "the pod, RUNNING" ".desiredStatus == \"RUNNING\" and ($rest_pod_ok)"
		;;
	"POST /v1/pods")
		want_status 201
		want_ctype application/json
		want_jq "the new pod" "$rest_pod_ok"
		;;
	"DELETE /v1/pods/"*)
		want_status 204
		check "$COMMAND: a delete answers no body" '[ ! -s "$TMP/reply" ]'
		terminated+=("${RPATH#/v1/pods/}")
		;;
	esac
}

replay_recording "$SRCDIR/tests/data/runpod-cli/requests.jsonl"

# Beyond the recording: errors as the clients read them.
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' -H 'Authorization: Bearer wrong' \
    "$SERVE_URL/v1/pods")
check "REST: a wrong key is 401 (got $STATUS)" '[ "$STATUS" = 401 ]'
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' -H 'Authorization: Bearer wrong' \
    -H 'Content-Type: application/json' -d '{"query":"query { myself { id } }"}' "$SERVE_URL/graphql")
check "GraphQL: a wrong key is 401, which runpod-python turns into AuthenticationError" \
    '[ "$STATUS" = 401 ]'
STATUS=$(curl -s -o "$TMP/reply" -w '%{http_code}' -H "Authorization: Bearer $REPLAY_KEY" \
    -H 'Content-Type: application/json' -d '{"gpuTypeIds":["NVIDIA H100 NVL"],"gpuCount":8,"imageName":"x"}' \
    "$SERVE_URL/v1/pods")
check "REST: no capacity is a 500 with {error, status}, as observed live (got $STATUS)" \
    '[ "$STATUS" = 500 ] && jq -e ".error | startswith(\"create pod: \")" "$TMP/reply" >/dev/null'
start_serve runpod --api-key "$REPLAY_KEY" --fail-429 100
curl -s -o /dev/null -D "$TMP/headers" -H "Authorization: Bearer $REPLAY_KEY" "$SERVE_URL/v1/pods"
check "a 429 carries Retry-After, which RunPod sends" 'grep -qi "^retry-after: [0-9]" "$TMP/headers"'
pass
