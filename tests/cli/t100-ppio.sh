#!/bin/bash
# PPIO backend end to end against `gpurent sim serve --dialect ppio`: offers in yuan decoded
# exactly from the scaled integers, the lifecycle (launch, stop, start, destroy), the
# provider's errors as gpurent's exit statuses, and the endpoint from ppio.url.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
start_serve ppio --api-key test-key-ppio
use_provider ppio test-key-ppio

expect_ok g --provider ppio -o json offers gpus=1
check "ppio offers" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = ppio ]'
check "every offer says CNY" '[ "$(jq -r "[.[].currency] | unique | join(\",\")" <<<"$OUT")" = CNY ]'
check "sorted by price in yuan" 'jq -e "[.[].price_hour] as \$p | \$p == (\$p | sort)" <<<"$OUT" >/dev/null'
# Exactly the provider's integer over 10^precision, times the GPUs: 4-GPU offers too.
curl -s -H "Authorization: Bearer test-key-ppio" \
    "$SERVE_URL/gpus/v2/products?type=gpu&category=instance" >"$TMP/products.json"
expect_ok g --provider ppio -o json offers gpus=4 type=on-demand
first=$(jq -c '.[0]' <<<"$OUT")
pid=$(jq -r '.id | sub("^ppio:"; "") | sub("@.*"; "")' <<<"$first")
want=$(jq -r --arg p "$pid" '.data[] | select(.id == $p) | .pricing |
    (.postpaid.final_price * 4 | tostring) + "/" + (.precision | tostring)' "$TMP/products.json")
got=$(jq -r .price_hour <<<"$first")
check "4 GPUs cost 4 x final_price / 10^precision ($want vs $got)" \
    '[ "$(awk -v w="$want" -v g="$got" "BEGIN { split(w, a, \"/\"); printf \"%d\", (a[1] * 1000000 / 10^a[2]) == int(g * 1000000 + 0.5) }")" = 1 ]'
expect_ok env COLUMNS=200 "$GPURENT" --provider ppio offers gpus=1
check "the table shows yuan" 'grep -q "¥[0-9]" <<<"$OUT"'
check "and no dollars" '! grep -q "\$[0-9]" <<<"$OUT"'
check "Chinese locations kept whole" 'grep -q "华[东南北中] cn-" <<<"$OUT"'

# Launch: stock is advisory, as on PPIO; the first offers may be sold out in their region.
launched=0 soldout=0
for off in $(g --provider ppio -o json offers gpus=1 type=on-demand 2>/dev/null |
    jq -r '.[0:12][].id'); do
	run g launch "$off" --image pytorch/pytorch --label t100-ppio --disk 40
	case $RC in
	0) launched=1; id=$OUT; break ;;
	7) soldout=$((soldout + 1)); check "sold out says so" 'grep -q INSUFFICIENT_RESOURCE <<<"$ERR"' ;;
	*) fail "launch of $off exited $RC" ;;
	esac
done
check "an offer launched" '[ $launched = 1 ]'
check "ppio id" '[[ $id =~ ^ppio:[0-9a-f]{10}$ ]]'
expect_ok g -o json show "$id"
check "provisioning, with its label" \
    '[ "$(jq -r ".state + \" \" + .label" <<<"$OUT")" = "provisioning t100-ppio" ]'
check "priced in CNY" '[ "$(jq -r .currency <<<"$OUT")" = CNY ] && [ "$(jq -r .price_hour <<<"$OUT")" != null ]'
expect_ok serve_g ppio sim advance 10m
expect_ok g -o json show "$id"
check "running, with ssh" '[ "$(jq -r ".state + \" \" + (.ssh_port|tostring)" <<<"$OUT")" = "running 22" ]'
expect_ok g stop --no-wait "$id"
expect_ok serve_g ppio sim advance 10m
expect_ok g -o json show "$id"
check "stopped" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
expect_ok g start "$id"
expect_ok serve_g ppio sim advance 10m
expect_ok g -o json show "$id"
check "running again" '[ "$(jq -r .state <<<"$OUT")" = running ]'
expect_ok g --provider ppio ls
check "ls shows it in yuan" 'grep "$id" <<<"$OUT" | grep -q "¥"'
expect_ok g destroy --yes "$id"
expect_ok g -o json show "$id"
check "releasing" '[ "$(jq -r .state <<<"$OUT")" = destroying ]'

# Errors in PPIO's shape (almost all HTTP 400, told apart by reason): exit statuses.
expect_rc 3 g show ppio:00000000ff
check "not found" 'grep -q "no instance" <<<"$ERR"'
expect_rc 3 g show 'ppio:../products'
GPURENT_PPIO_API_KEY=wrong expect_rc 4 g --provider ppio ls
expect_rc 2 g launch "$off" --label t100-no-image
check "an image is needed" 'grep -q "image" <<<"$ERR"'

# `gpurent login ppio`: a key checked against the provider, then used from the store.
unset GPURENT_PPIO_API_KEY
export GPURENT_PASSPHRASE=t100-passphrase
expect_rc 4 g --provider ppio ls
check "no key: says how to give one" 'grep -qi "login ppio\|PPIO_API_KEY" <<<"$ERR"'
expect_rc 4 g login ppio --stdin <<<wrong-key
expect_ok g login ppio --stdin <<<test-key-ppio
expect_ok g --provider ppio ls
check "the stored key works" '[ "$RC" = 0 ]'
PPIO_API_KEY=wrong expect_rc 4 g --provider ppio ls

# The endpoint from the config (ppio.url) when GPURENT_PPIO_URL is not set; the environment
# wins over it. Port 1 on loopback refuses, so a request sent there fails at once.
expect_ok g config set ppio.url http://127.0.0.1:1
expect_ok g --provider ppio -o json offers gpus=1
check "GPURENT_PPIO_URL wins over ppio.url" '[ "$(jq -r ".[0].provider" <<<"$OUT")" = ppio ]'
unset GPURENT_PPIO_URL
run g --provider ppio -o json offers gpus=1
check "without it, ppio.url is where requests go (refused: rc $RC)" '[ "$RC" != 0 ] && [[ $ERR == *127.0.0.1:1* || $ERR == *refused* || $ERR == *connect* ]]'
expect_ok g config set ppio.url "$SERVE_URL"
expect_ok g --provider ppio -o json offers gpus=1
check "ppio.url pointed at the server: its offers, in yuan" \
	'[ "$(jq -r "[.[].provider] | unique | join(\",\")" <<<"$OUT")" = ppio ] && [ "$(jq -r ".[0].currency" <<<"$OUT")" = CNY ]'
pass
