#!/bin/bash
# Conformance of the runpod dialect's REST v2: the calls of RunPod's documented v2 examples
# for a pod's life (tests/data/runpod-v2-api/, written from ../shared/providers/runpod.md §9,
# see README.md) replayed against `sim serve --dialect runpod`; every answer's status,
# Content-Type and shape checked: lists wrapped, `status`, `actions`, `cost` 0 when not
# running, the ssh block, problem+json errors, create failures by status.
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"
. "$(dirname "$0")/lib.sh"

export GPURENT_SIM_TIME=1780000000
REPLAY_KEY=conformance-key
start_serve runpod --api-key "$REPLAY_KEY"

pod_ok='(.id | test("^[a-z0-9]{14}$")) and (.name | type == "string") and
 (.image | type == "string") and
 (.status | IN("PROVISIONING","STARTING","RUNNING","EXITED","ERROR","TERMINATED")) and
 (.actions | type == "array" and all(.[]; IN("start","stop","restart","terminate"))) and
 (.cost | type == "number") and (if .status == "EXITED" then .cost == 0 else true end) and
 (.gpu.id | type == "string") and (.gpu.count | type == "number") and
 (.cloud | IN("SECURE","COMMUNITY")) and (.dataCenterId | type == "string") and
 (.ssh.proxy | (.host | type == "string") and (.port | type == "number") and
  (.username | type == "string") and (.command | type == "string")) and
 (.ssh | has("direct")) and (.createdAt | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T")) and
 has("startedAt") and has("runtime") and (.interruptible | type == "boolean") and
 (.lastStatusChange | type == "string")'
running_ok='.status == "RUNNING" and (.actions | index("stop") != null) and .cost > 0 and
 (.ssh.direct | (.host | type == "string") and (.port | type == "number") and
  .username == "root") and (.runtime.uptime | type == "number") and
 (.runtime.gpus | length > 0 and all(.[]; (.util | type == "number"))) and
 (.runtime | has("cpu") and has("memory")) and (.runtime.ports | type == "array")'
gpu_ok='(.id | type == "string") and (.displayName | type == "string") and
 (.price | has("secure") and has("community") and has("serverless")) and
 (.maxCount | type == "number")'
problem_ok() {
	want_ctype application/problem+json
	want_jq "problem+json: title, status $1, detail, errors" \
	    "(.title | type == \"string\") and .status == $1 and (.detail | type == \"string\") and
	     (.errors | type == \"array\")"
}

check_reply() {
	case "$METHOD $RPATH" in
	"GET /v2/catalog/gpus")
		want_status 200
		want_ctype application/json
		want_jq "the catalogue wrapped, each type with its prices" \
		    "(.gpus | length > 0) and all(.gpus[]; $gpu_ok)"
		if [[ $COMMAND == *AVAILABILITY* ]]; then
			want_jq "availability per data centre when asked" \
			    'all(.gpus[]; all(.availability[]; (.dataCenterId | type == "string") and
			      (.status | IN("NONE","LOW","MEDIUM","HIGH"))))'
		else
			want_jq "no availability unless asked" 'all(.gpus[]; has("availability") | not)'
		fi
		;;
	"GET /v2/catalog/gpus/"*)
		want_status 200
		want_jq "one type" ".id == \"NVIDIA H100 80GB HBM3\" and ($gpu_ok)"
		;;
	"GET /v2/catalog/datacenters")
		want_status 200
		want_jq "data centres wrapped" '(.dataCenters | length > 0) and
		    all(.dataCenters[]; (.id | type == "string") and (.name | type == "string"))'
		;;
	"POST /v2/pods")
		case $COMMAND in
		*"(§9's nested body"*)
			want_status 201
			want_ctype application/json
			want_jq "the new pod" "($pod_ok) and .name == \"v2-replay\" and
			    .status == \"PROVISIONING\" and .runtime == null" ;;
		*"no capacity"*)
			want_status 400
			problem_ok 400
			want_jq "the detail says no capacity" '.detail | test("no instances currently available")' ;;
		*"a rule"*)
			want_status 400
			problem_ok 400
			want_jq "the detail names the rule, not capacity" \
			    '.detail | test("not a GPU type") and (test("available") | not)' ;;
		*)
			want_status 422
			problem_ok 422
			want_jq "errors name the field" '.errors[0].field | IN("image","interruptible")' ;;
		esac
		;;
	"GET /v2/pods")
		if [[ $COMMAND == *"without a key"* ]]; then
			want_status 401
			problem_ok 401
		else
			want_status 200
			want_ctype application/json
			want_jq "the list wrapped as {pods: [...]}" \
			    "(keys == [\"pods\"]) and (.pods | length == 1) and all(.pods[]; $pod_ok)"
		fi
		;;
	"GET /v2/pods/"*/logs)
		want_status 200
		want_jq "log lines" '(.logs | length > 0) and all(.logs[]; (.message | type == "string"))'
		;;
	"GET /v2/pods/"*)
		case $COMMAND in
		*"after delete"*)
			want_status 404
			problem_ok 404 ;;
		*stopped*)
			want_status 200
			want_jq "EXITED, costing 0, startable" "($pod_ok) and .status == \"EXITED\" and
			    .cost == 0 and .actions == [\"start\",\"terminate\"] and .runtime == null and
			    .ssh.direct == null" ;;
		*)
			want_status 200
			want_jq "running, with its ssh block and runtime" "($pod_ok) and ($running_ok)" ;;
		esac
		;;
	"POST /v2/pods/"*/action)
		case $COMMAND in
		*"again"*)
			want_status 409
			problem_ok 409 ;;
		*reset*)
			want_status 422
			problem_ok 422 ;;
		*stop)
			want_status 200
			want_jq "the pod, EXITED" "($pod_ok) and .status == \"EXITED\" and .cost == 0" ;;
		*start)
			want_status 200
			want_jq "the pod, on its way up" \
			    "($pod_ok) and (.status | IN(\"PROVISIONING\",\"STARTING\",\"RUNNING\"))" ;;
		esac
		;;
	"PATCH /v2/pods/"*)
		want_status 200
		want_jq "renamed" "($pod_ok) and .name == \"v2-renamed\""
		;;
	"DELETE /v2/pods/"*)
		want_status 204
		check "$COMMAND: a delete answers no body" '[ ! -s "$TMP/reply" ]'
		;;
	"GET /v2/billing/pods")
		want_status 200
		want_jq "billing records of the pod" '(.records | length == 1) and
		    all(.records[]; .podId == "sp000000000001" and (.startTime | type == "string") and
		     (.endTime | type == "string") and (.totalAmount | type == "number") and
		     (.gpuAmount | type == "number") and (.diskAmount | type == "number"))'
		;;
	"GET /v2/billing/network-volumes")
		want_status 200
		want_jq "records" '.records == []'
		;;
	"PUT /v2/account/ssh-keys" | "GET /v2/account/ssh-keys")
		want_status 200
		want_jq "the account's keys" '(.keys | length == 1) and .keys[0].name == "laptop" and
		    (.keys[0].fingerprint | startswith("SHA256:"))'
		;;
	*)
		fail "$COMMAND: a request the checks do not know"
		;;
	esac
}

replay_recording "$SRCDIR/tests/data/runpod-v2-api/requests.jsonl"

# Beyond the recording: a rate limit is problem+json too, with RunPod's Retry-After.
start_serve runpod --api-key "$REPLAY_KEY" --fail-429 100
STATUS=$(curl -s -o "$TMP/reply" -D "$TMP/headers" -w '%{http_code}' \
    -H "Authorization: Bearer $REPLAY_KEY" "$SERVE_URL/v2/pods")
check "a 429 on v2 (got $STATUS)" '[ "$STATUS" = 429 ]'
check "as problem+json with Retry-After" \
    'grep -qi "^content-type: application/problem+json" "$TMP/headers" &&
     grep -qi "^retry-after: [0-9]" "$TMP/headers" && jq -e ".status == 429" "$TMP/reply" >/dev/null'
pass
