#!/usr/bin/env bash
# gpurent's vast backend sets vast's intended_status as vast does (issue 28): `gpurent stop`
# of an instance still loading is accepted and recorded, not refused; `show` says it is
# provisioning with intended_state stopped; its reservation is let go (it will not run);
# once loaded it is stopped. Against `gpurent sim serve --dialect vast`.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

start_serve vast --api-key k
use_provider vast k
expect_ok g config set providers vast

offer=$(g offers gpus=1 type=on-demand -o ids -n 1)
expect_ok g launch "$offer" --label early
id=$OUT
expect_ok g show "$id" -o json
price=$(jq -r .price_hour <<<"$OUT")
check "loading, meant to run" \
	'jq -e ".state == \"provisioning\" and .intended_state == \"running\"" <<<"$OUT" >/dev/null'
expect_ok g costs -o json
check "its price is reserved while it loads ($price)" \
	'[ "$(jq -r .provisioning_hour <<<"$OUT")" = "$price" ]'

expect_ok g stop --no-wait "$id"
check "the stop is accepted while it loads" '[ "$OUT" = "$id" ]'
expect_ok g show "$id" -o json
check "still provisioning, intended stopped" \
	'jq -e ".state == \"provisioning\" and .intended_state == \"stopped\"" <<<"$OUT" >/dev/null'
expect_ok g costs -o json
check "the reservation is let go: it will not run" \
	'[ "$(jq -r .provisioning_hour <<<"$OUT")" = 0 ]'

expect_ok serve_g vast sim advance 5m
expect_ok g show "$id" -o json
check "once loaded, it is stopped" \
	'jq -e ".state == \"stopped\" and .intended_state == \"stopped\"" <<<"$OUT" >/dev/null'
pass
