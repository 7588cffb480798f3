#!/bin/bash
# gpurent audit with money in yuan and in dollars (issues 14 and 18): every amount in its
# own currency in the table, JSON and CSV; a total per currency, side by side; all of them
# added up only at the configured fx rate, and then saying so; "cheaper now" compares a yuan
# instance with yuan offers, and with dollar offers only at the rate. Nothing is converted
# silently.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
ppio_beside_sim
# The client's state database, made by its first listing (the server keeps its own).
expect_ok g -p sim ls

# A ledger with a yuan and a dollar row (written as the ledger writes them), an hour each.
ledger_yuan_and_dollar_hours

expect_ok g audit --offline -o json
a=$OUT
check "each row in its own currency: 12.60 yuan, 2.00 dollars" \
    '[ "$(jq -r "[.rows[] | .key + \" \" + .currency + \" \" + (.spend|tostring)] | join(\",\")" <<<"$a")" = "vast:1 USD 2,ppio:abc CNY 12.6" ]'
check "a total per currency, dollars first" \
    '[ "$(jq -r "[.totals[] | .currency + \" \" + (.spend|tostring) + \" \" + (.instances|tostring)] | join(\",\")" <<<"$a")" = "USD 2 1,CNY 12.6 1" ]'
check "the total over both: two hours, and no amount without a rate (not 14.6)" \
    'jq -e ".total | .billed_hours == 2 and .instances == 2 and .spend == null and .waste == null and .currency == null and .converted == false" <<<"$a" >/dev/null'
expect_ok g audit --offline
check "the table: yuan as yuan, dollars as dollars, side by side" \
    'grep -q "^ppio:abc .*¥12\.60" <<<"$OUT" && grep -q "^vast:1 .*\$2\.00" <<<"$OUT" &&
     grep -q "^total .*¥12\.60.* CNY" <<<"$OUT" && grep -q "^total .*\$2\.00.* USD" <<<"$OUT"'
check "never \$12.60 nor \$14.60" '! grep -q "\$1[24]\.60" <<<"$OUT"'
check "and says they are not added up" 'grep -q "currencies are not added up: set fx.CODE" <<<"$OUT"'
COLUMNS=80 expect_ok g audit --offline
check "at 80 columns no line wraps, the table's nor the note's: $OUT" \
    '[ "$(wc -L <<<"$OUT")" -le 80 ] && grep -q "^converted total$" <<<"$OUT"'
expect_ok g audit --offline -o csv
check "CSV: a currency column beside the amounts" \
    '[ "$(head -n 1 <<<"$OUT" | cut -d, -f15,16)" = currency,converted ] &&
     grep -q "^ppio:abc,1,1,12\.6,.*,CNY,false$" <<<"$OUT" && grep -q "^vast:1,1,1,2,.*,USD,false$" <<<"$OUT"'
check "CSV: the totals per currency, then the one over both, last, with no amount" \
    '[ "$(grep -c "^total," <<<"$OUT")" = 3 ] && tail -n 1 <<<"$OUT" | grep -q "^total,2,2,,.*,,false$"'
expect_ok g audit --offline --by provider -o json
check "groups carry their currency" \
    '[ "$(jq -r "[.rows[] | .key + \" \" + .currency] | join(\",\")" <<<"$OUT")" = "vast USD,ppio CNY" ]'

# At fx.CNY = 0.14 the total adds them up, in dollars: 2.00 + 12.60 x 0.14 = 3.764.
expect_ok g config set fx.CNY 0.14
expect_ok g audit --offline -o json
check "the total converted at the rate, and marked so" \
    'jq -e ".total | .spend == 3.764 and .currency == \"USD\" and .converted == true" <<<"$OUT" >/dev/null'
check "the rows and the totals per currency stay as billed" \
    'jq -e "(.totals | map(.spend) == [2, 12.6]) and ([.rows[] | select(.currency == \"CNY\")] | length == 1)" <<<"$OUT" >/dev/null'
expect_ok g audit --offline
check "the table says it converted" \
    'grep -q "^total .*\$3\.76.*USD (converted at your configured rate)" <<<"$OUT" &&
     grep -q "converted at your configured rate (fx\.\*)" <<<"$OUT"'
expect_ok g config unset fx.CNY

# A yuan instance: an H100 PCIe, dearer in yuan than the SXM of the same family and memory,
# and dearer as a plain number than every dollar H100. Stock is advisory, as on PPIO.
id=
for off in $(g --provider ppio -o json offers gpu=H100-PCIE-80GB gpus=1 type=on-demand \
    2>/dev/null | jq -r '.[0:12][].id'); do
	run g launch "$off" --image pytorch/pytorch --label cn
	case $RC in
	0) id=$OUT; break ;;
	7) ;;
	*) fail "launch of $off exited $RC" ;;
	esac
done
check "a yuan H100 PCIe launched" '[[ $id =~ ^ppio: ]]'
expect_ok serve_g ppio sim advance 10m
expect_ok g audit -o json
c=$(jq -c --arg id "$id" '.cheaper_now[] | select(.instance_id == $id)' <<<"$OUT")
check "no rate: compared with yuan offers only, the saving in yuan ($c)" \
    'jq -e ".currency == \"CNY\" and .offer_currency == \"CNY\" and .converted == false and
      (.saving_hour - (.price_hour - .offer_price_hour) | fabs) < 0.000001" <<<"$c" >/dev/null'
expect_ok g audit
check "the table shows the yuan saving in yuan" \
    'grep "^$id " <<<"$OUT" | grep -q "¥[0-9.]* *¥[0-9.]* *¥[0-9.]*$" && ! grep "^$id " <<<"$OUT" | grep -q "\\$"'

# At fx.CNY = 0.15 a dollar H100 (under $1.9656 = 13.104 yuan) is cheaper: compared at the rate.
expect_ok g config set fx.CNY 0.15
expect_ok g audit -o json
c=$(jq -c --arg id "$id" '.cheaper_now[] | select(.instance_id == $id)' <<<"$OUT")
check "a dollar offer through the rate, the saving in yuan, marked converted ($c)" \
    'jq -e ".currency == \"CNY\" and .offer_currency == \"USD\" and .converted == true and
      (.saving_hour - (.price_hour - .offer_price_hour / 0.15) | fabs) < 0.00001" <<<"$c" >/dev/null'
COLUMNS=80 expect_ok g audit
check "and the table says so" 'grep -q "compared at your configured rate" <<<"$OUT"'
check "at 80 columns no line wraps: $OUT" '[ "$(wc -L <<<"$OUT")" -le 80 ]'
pass
