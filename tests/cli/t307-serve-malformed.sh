#!/bin/bash
# sim serve answers malformed requests with the provider's own 400, and keeps serving.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

# raw_post URL PATH BODY: send one request over /dev/tcp, print the status line.
raw_post() {
	local hostport=${1#http://} path=$2 body=$3
	exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || return 1
	printf 'POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
	    "$path" "${#body}" "$body" >&3
	head -1 <&3 | tr -d '\r'
	exec 3<&-
}

for d in vast runpod lambda; do
	start_serve "$d" --api-key k
	case $d in
	vast) path=/api/v0/bundles/ ;;
	runpod) path=/graphql ;;
	lambda) path=/api/v1/instance-operations/launch ;;
	esac
	for body in '{bad' '[]' '"x"' '{"query":"mutation { podStop(input: {podId: "}' \
	    '{"limit":"many","region_name":7,"query":{}}' "$(printf '%.0s{' $(seq 1 2000))"; do
		st=$(raw_post "$SERVE_URL" "$path" "$body")
		check "$d: malformed body '${body:0:20}' gets 400 ($st)" '[[ $st == "HTTP/1.1 400"* ]]'
	done
	use_provider "$d" k
	expect_ok g --provider "$d" -o json offers gpus=1
	check "$d still serves" 'jq -e "length > 0" <<<"$OUT" >/dev/null'
done
pass
