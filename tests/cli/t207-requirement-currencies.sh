#!/bin/bash
# Launch by requirement and elastic groups over providers in two currencies (issues 14 and
# 18): `providers = sim,ppio` sells H100s in dollars and in yuan. Neither the dry run nor
# the watcher's group pass may crash on it (both once read the offers' currencies after
# freeing the list).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/watch.sh"

export GPURENT_SIM_TIME=1780000000
# The server keeps a simulated world of its own: the sim provider must not list its
# instances a second time.
mkdir -p "$TMP/serve-home"
GPURENT_HOME=$TMP/serve-home start_serve ppio --api-key k
use_provider ppio k
expect_ok g config set providers sim,ppio
expect_ok g config set launch.image pytorch/pytorch
check "H100s in both currencies" \
    '[ "$(g -o json offers gpu=H100 gpus=1 | jq -r "[.[].currency] | unique | join(\",\")")" = "CNY,USD" ]'

# The dry run over both currencies answers (it once crashed, rc 139).
run g launch --gpu H100 --count 1 --dry-run
check "launch --dry-run did not crash (rc $RC): $ERR" '[ "$RC" -ne 139 ] && [ "$RC" -lt 128 ]'

check "without a rate: refused, naming fx.CNY" \
    '[ "$RC" = 2 ] && grep -q "ranks them by price only at a rate" <<<"$ERR" && grep -q "fx.CNY" <<<"$ERR"'
expect_rc 2 g -p ppio launch --gpu H100 --count 1 --max-price 100 --dry-run
check "a dollar --max-price against yuan offers: refused, naming fx.CNY" \
    'grep -q "\-\-max-price is in USD and some offers are priced in CNY" <<<"$ERR"'
expect_rc 2 g launch --gpu H100 --count 1 --max-price "2 yuan" --dry-run
check "a currency it does not know: usage" 'grep -q "90 CNY" <<<"$ERR"'

# One currency needs no rate; --max-price in yuan holds yuan offers; the cells are in yuan.
expect_ok g -p ppio -o json launch --gpu H100 --count 1 --dry-run
cny_min=$(jq '[.[].all_in_hour] | min' <<<"$OUT")
cny_max=$(jq '[.[].all_in_hour] | max' <<<"$OUT")
check "yuan offers of two prices (¥$cny_min, ¥$cny_max)" '[ "$cny_min" != "$cny_max" ]'
expect_ok g -p ppio launch --gpu H100 --count 1 --max-price "$cny_min CNY" --dry-run
check "yuan cells, no dollar sign: $OUT" \
    '[[ $(sed -n 2p <<<"$OUT") == *"¥"*"¥"*"¥"* ]] && [[ $OUT != *\$* ]]'
check "held to ¥$cny_min: the ¥$cny_max ones left out" \
    '[[ $OUT == *"¥$(printf %.3f "$cny_min")"* ]] && [[ $OUT != *"¥$(printf %.3f "$cny_max")"* ]]'
check "no conversion said" '[[ $ERR != *"converted"* ]]'

# With fx.CNY = 0.14: ranked in dollars at the rate, --max-price in either currency held
# at the rate, and said.
expect_ok g config set fx.CNY 0.14
expect_ok g -o json launch --gpu H100 --count 1 --dry-run
check "said: converted at your configured rate" 'grep -q "converted at your configured rate (fx.CNY)" <<<"$ERR"'
check "ranked at the rate, each in its own currency" \
    'jq -e "[.[] | if .currency == \"CNY\" then .all_in_hour * 0.14 else .all_in_hour end] as \$p |
      (\$p == (\$p | sort)) and ([.[].currency] | unique == [\"CNY\", \"USD\"])" <<<"$OUT" >/dev/null'
check "a yuan candidate's all-in is in yuan" \
    '[ "$(jq "[.[] | select(.currency == \"CNY\") | .all_in_hour] | min" <<<"$OUT")" = "$cny_min" ]'
usd_min=$(jq '[.[] | select(.currency == "USD") | .all_in_hour] | min' <<<"$OUT")
# A dollar bound just above the cheapest yuan offer at the rate, below the dearest.
usd_bound=$(awk "BEGIN { printf \"%.4f\", $cny_min * 0.14 + 0.0001 }")
expect_ok g -p ppio -o json launch --gpu H100 --count 1 --max-price "$usd_bound" --dry-run
check "a dollar --max-price (\$$usd_bound) holds yuan offers at the rate" \
    '[ "$(jq "[.[].all_in_hour] | unique | join(\",\")" <<<"$OUT")" = "\"$cny_min\"" ]'
cny_bound=$(awk "BEGIN { printf \"%.2f\", $usd_min / 0.14 + 0.005 }")
expect_ok g -o json launch --gpu H100 --count 1 --max-price "$cny_bound CNY" --dry-run
check "a yuan --max-price (¥$cny_bound) holds dollar offers at the rate (\$$usd_min in)" \
    'jq -e "any(.[]; .currency == \"USD\" and .all_in_hour == $usd_min) and
      all(.[]; (if .currency == \"USD\" then .all_in_hour / 0.14 else .all_in_hour end) <= $cny_bound)" \
      <<<"$OUT" >/dev/null'
# The launch itself: the cheapest at the rate, and the attempt said in its currency.
expect_ok g -p ppio launch --gpu H100 --count 1 --max-price "$usd_bound"
check "rented a yuan offer: $OUT" '[[ $OUT == ppio:* ]]'
check "the attempt said in yuan: $ERR" 'grep -q "rented ppio:.*(¥$(printf %.3f "$cny_min")/h all in)" <<<"$ERR"'
expect_ok g -p ppio destroy --yes "$OUT"
expect_ok g config unset fx.CNY

# A group of a GPU sold in both currencies: the watcher's pass answers (it once crashed) and,
# without a rate, launches nothing and says which rate to set.
expect_ok g group create both --gpu H100 --min 1 --max 2 --target-util 50
run g watch --once --interval 1h
check "watch --once did not crash (rc $RC): $ERR" '[ "$RC" -ne 139 ] && [ "$RC" -lt 128 ]'
check "without a rate: no member, and the alert names fx.CNY: $OUT" \
    '[[ $OUT == *"group-launch-failed: group both: "*"ranks them by price only at a rate"*"fx.CNY"* ]]'
check "nothing rented" '[ "$(g -o json ls --group both | jq length)" = 0 ]'

# With the rate, the member is the cheapest at it, and the event says so.
expect_ok g config set fx.CNY 0.14
expect_ok g watch --once --interval 1h
check "launched, saying the rate: $OUT" \
    '[[ $OUT == *"group-launched"*"converted at your configured rate fx.CNY"* ]]'
check "one member" '[ "$(g -o json ls --group both | jq length)" = 1 ]'
expect_ok g group rm both

# A group kept on one provider (-p) with a max price in yuan: stored, shown, obeyed.
expect_ok g -p ppio group create yuan --gpu H100 --min 1 --max 2 --target-util 50 \
    --max-price "$cny_min CNY"
expect_ok g -o json group show yuan
check "stored with its currency and provider" \
    '[ "$(jq -c ".[0] | [.max_price_hour, .currency, .providers]" <<<"$OUT")" = "[$cny_min,\"CNY\",\"ppio\"]" ]'
expect_ok g group ls
check "the table shows yuan: $OUT" '[[ $OUT == *"¥$(printf %.2f "$cny_min")"*"ppio"* ]]'
expect_ok g config unset fx.CNY	# one currency: no rate needed
expect_ok g watch --once --interval 1h
check "a PPIO member at most ¥$cny_min: $OUT" \
    '[ "$(g -o json ls --group yuan | jq -c "[.[] | .currency, (.price_hour <= $cny_min), (.id | startswith(\"ppio:\"))]")" = "[\"CNY\",true,true]" ]'
expect_rc 2 g -p nosuch group create other --gpu H100 --max 1 --target-util 50
expect_rc 2 g group create other --gpu H100 --max 1 --target-util 50 --max-price "2 yuan"

# A groups table made before currencies and providers: its max prices are dollars.
export GPURENT_HOME=$TMP/old-home
mkdir -p "$GPURENT_HOME"
expect_ok g group ls	# makes the state database
sqlite3 "$GPURENT_HOME/state.db" "DROP TABLE groups; CREATE TABLE groups(name TEXT PRIMARY KEY,
    gpu TEXT NOT NULL, gpus INTEGER NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL,
    target_util INTEGER NOT NULL, cooldown INTEGER NOT NULL, window INTEGER NOT NULL,
    base INTEGER NOT NULL, max_price INTEGER NOT NULL, env TEXT NOT NULL,
    predict INTEGER NOT NULL, created_at INTEGER NOT NULL, last_scale_at INTEGER NOT NULL);
    INSERT INTO groups VALUES('old', 'A100', 1, 0, 2, 50, 600, 600, -1, 2500000, '', 0, 0, 0);
    PRAGMA user_version = 0" ||
    fail "sqlite3"
expect_ok g -o json group show old
check "an old group: dollars, any provider" \
    '[ "$(jq -c ".[0] | [.max_price_hour, .currency, .providers]" <<<"$OUT")" = "[2.5,\"USD\",null]" ]'
pass
