#!/bin/bash
# Issue 33: the exporter's series are in US dollars (their names say so): an instance priced
# in yuan has no gpurent_instance_price_dollars_per_hour (it was served its yuan price, 1.152
# yuan an hour, as 1.152 dollars), as it has no spend series; a dollar instance beside it keeps
# its price.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/exporter.sh"
export GPURENT_SIM_TIME=1790777600

ppio_beside_sim
# Stock is advisory on PPIO: the first of the cheapest offers that launches.
cn=
for off in $(g -p ppio offers type=on-demand gpus=1 -o ids -n 12 2>/dev/null); do
	cn=$(g launch "$off" --image pytorch/pytorch --label cn 2>/dev/null) && break
done
check "a yuan instance launched" '[[ $cn =~ ^ppio: ]]'
us=$(g launch sim:o-000075 --label us) || fail "launch sim:o-000075"
expect_ok serve_g ppio sim advance 10m
expect_ok g sim advance 2m
expect_ok g ls -o json
check "running, priced in yuan and in dollars" \
	'jq -e "(.[] | select(.id == \"$cn\") | .state == \"running\" and .currency == \"CNY\") and (.[] | select(.id == \"$us\") | .state == \"running\" and .price_hour == 1.89)" <<<"$OUT" >/dev/null'

start_exporter
wait_scrape "^gpurent_instance_up\\{instance_id=\"$us\""
wait_scrape "^gpurent_instance_up\\{instance_id=\"$cn\""
# figure: exporter-price
check "the dollar instance's price in dollars, 1.89" \
	'grep -q "^gpurent_instance_price_dollars_per_hour{instance_id=\"$us\",provider=\"sim\",label=\"us\"} 1\.890000$" <<<"$OUT"'
check "no dollar price for the yuan instance" \
	'! grep -q "^gpurent_instance_price_dollars_per_hour{instance_id=\"$cn\"" <<<"$OUT"'
check "nor a dollar spend" '! grep -q "^gpurent_spend_dollars_total{instance_id=\"$cn\"" <<<"$OUT"'
pass
