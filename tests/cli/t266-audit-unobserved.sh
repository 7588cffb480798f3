#!/bin/bash
# An instance that no sample ever saw: audit says its idle share and waste are unknown (null
# in JSON, '-' in the table), never 0 (it may have idled all along), while one sampled idle
# beside it has them. Its spend is still known.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

expect_ok g launch --gpu h100 --count 1 --dry-run -o json
offer=$(jq -r '.[0].id' <<<"$OUT")
expect_ok g launch "$offer" --label unseen
unseen=$OUT
expect_ok g launch --gpu h100 --count 1 --dry-run -o json
offer=$(jq -r '.[0].id' <<<"$OUT")
expect_ok g launch "$offer" --env SIM_WORKLOAD=idle --label seen
seen=$OUT
expect_ok g sim advance 1h
for i in 1 2 3; do
	expect_ok g metrics "$seen"
	expect_ok g sim advance 60
done

expect_ok g audit -o json
a=$OUT
check "the unobserved instance: spend known, idle share and waste null" \
	'jq -e ".rows[] | select(.key == \"$unseen\") | .spend > 0 and .idle_pct == null and .waste == null" <<<"$a" >/dev/null'
check "the observed one: idle share and waste are figures" \
	'jq -e ".rows[] | select(.key == \"$seen\") | (.idle_pct | type) == \"number\" and (.waste | type) == \"number\"" <<<"$a" >/dev/null'
COLUMNS=200 expect_ok g audit
row=$(grep -F "$unseen" <<<"$OUT")
# KEY, BILLED H, SPEND, UTIL %, P95 %, IDLE %, WASTE: the sixth and seventh fields.
check "the table shows '-' for its idle share and waste ($row)" \
	'[ "$(awk "{ print \$6, \$7 }" <<<"$row")" = "- -" ]'
pass
