#!/bin/bash
# Money in two currencies (issue 18 part 2): costs per currency side by side, a total only at
# the user's configured rate and then saying so; a budget in CNY; sorting and filtering
# offers of USD and CNY by price refused, or grouped, without a rate. Nothing converted
# silently.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
ppio_beside_sim

# Offers of both: the default price sort groups them; a price sort asked for is refused.
expect_ok g -o json offers gpus=1
check "both currencies" '[ "$(jq -r "[.[].currency] | unique | join(\",\")" <<<"$OUT")" = "CNY,USD" ]'
check "grouped by currency, said on stderr" 'grep -q "within each currency" <<<"$ERR"'
check "dollars first, each in price order" \
    'jq -e "(map(.currency) | . == (map(select(. == \"USD\")) + map(select(. == \"CNY\")))) and
      ([.[] | select(.currency == \"CNY\") | .price_hour] as \$p | \$p == (\$p | sort))" <<<"$OUT" >/dev/null'
expect_rc 2 g offers gpus=1 --sort price
check "refused: no rate" 'grep -q "cannot sort offers priced in different currencies" <<<"$ERR" && grep -q "fx.CNY" <<<"$ERR"'
expect_rc 2 g offers gpus=1 'price<1'
check "price filter refused: no rate" 'grep -q "price filters are in US dollars" <<<"$ERR"'
expect_ok g --provider sim offers gpus=1 --sort price
check "one currency needs no rate" 'true'

# With fx.CNY = 0.14 the same sort and filter go through the rate, and say so.
expect_ok g config set fx.CNY 0.14
expect_ok g -o json offers gpus=1 --sort price 'price<0.5'
check "converted at the configured rate" 'grep -q "converted at your configured rate" <<<"$ERR"'
check "compared in dollars: 0.14 per yuan" \
    'jq -e "[.[] | if .currency == \"CNY\" then .price_hour * 0.14 else .price_hour end] as \$p |
      (\$p == (\$p | sort)) and all(\$p[]; . < 0.5)" <<<"$OUT" >/dev/null'
check "yuan prices shown as yuan" 'jq -e "any(.[]; .currency == \"CNY\")" <<<"$OUT" >/dev/null'
expect_rc 2 g config set fx.CNY -1
expect_rc 2 g config set fx.USD 2
expect_ok g config unset fx.CNY

# Costs: a ledger with a dollar and a yuan row (written as the ledger writes them).
ledger_yuan_and_dollar_hours
expect_ok g -o json costs
check "one summary per currency" '[ "$(jq -r "[.currencies[].currency] | join(\",\")" <<<"$OUT")" = "USD,CNY" ]'
check "12.60 yuan spent, in yuan" '[ "$(jq -r ".currencies[] | select(.currency == \"CNY\") | .spent" <<<"$OUT")" = 12.6 ]'
check "not added to the dollars" \
    '[ "$(jq -r ".currency + \" \" + (.converted|tostring) + \" \" + (.spent|tostring)" <<<"$OUT")" = "USD false 2" ]'
expect_ok g costs
check "side by side, with signs" 'grep -q "¥12.60" <<<"$OUT" && grep -q "\$2.00" <<<"$OUT"'
check "not added up" 'grep -q "not added up" <<<"$OUT"'
expect_ok g config set fx.CNY 0.14
expect_ok g -o json costs
check "the total converts at the rate: 2.00 + 12.60 x 0.14" \
    '[ "$(jq -r ".currency + \" \" + (.converted|tostring) + \" \" + (.spent|tostring)" <<<"$OUT")" = "USD true 3.764" ]'
expect_ok g costs
check "and says so" 'grep -q "converted at your configured rate" <<<"$OUT"'
expect_ok g -o json costs --by provider
check "groups carry their currency" \
    '[ "$(jq -r ".rows[] | select(.key == \"ppio\") | .currency" <<<"$OUT")" = CNY ]'

# A budget in yuan: a dollar launch is counted only at the rate.
expect_ok g config unset fx.CNY
expect_ok g config set budget.day "300 CNY"
expect_ok g config get budget.day
sim_offer=$(g --provider sim -o json offers gpus=1 type=on-demand 2>/dev/null | jq -r '.[0].id')
expect_rc 9 g launch "$sim_offer" --dry-run
check "no rate: refused, naming it" 'grep -q "fx.CNY" <<<"$ERR"'
expect_ok g config set fx.CNY 0.14
expect_ok g launch "$sim_offer" --dry-run
expect_ok g config set budget.day "1 CNY"
expect_rc 9 g launch "$sim_offer" --dry-run
check "over budget, in yuan, at the rate" \
    'grep -q "¥1.00" <<<"$ERR" && grep -q "converted at your configured rate" <<<"$ERR"'
expect_rc 2 g config set budget.day "300 yuan"
pass
