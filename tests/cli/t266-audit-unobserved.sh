#!/bin/bash
# An instance that no sample ever saw: audit says its idle share and waste are unknown (null
# in JSON, '-' in the table), never 0 (it may have idled all along), while one sampled idle
# beside it has them. Its spend is still known.
# figure: audit-observed. The totals say how many instances some sample covers and the hours
# they cover, beside the instances billed: in JSON (observed, observed_hours, in each row and
# the total) and in a line after the table. Hand-computed: three samples a minute apart, the
# last a minute before the audit, each cover the minute after it (the last as much as the
# gap before it): 180 s = 0.05 h; the unobserved instance, billed the same hour, has none:
# 1 of 2 observed.
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
check "the total: 2 instances, 1 observed for 0.05 hours ($(jq -c .total <<<"$a"))" \
	'jq -e ".total.instances == 2 and .total.observed == 1 and .total.observed_hours == 0.05" <<<"$a" >/dev/null'
check "each row says its own" \
	'jq -e ".rows[] | select(.key == \"$seen\") | .observed == 1 and .observed_hours == 0.05" <<<"$a" >/dev/null &&
	 jq -e ".rows[] | select(.key == \"$unseen\") | .observed == 0 and .observed_hours == 0" <<<"$a" >/dev/null'
COLUMNS=200 expect_ok g audit
check "the table's line after the total: $OUT" \
	'grep -qx "samples cover 1 of the 2 instances, 0.05 hours in all" <<<"$OUT"'
check "the table has no column of it" '! head -n 1 <<<"$OUT" | grep -q OBSERVED'
row=$(grep -F "$unseen" <<<"$OUT")
# KEY, BILLED H, SPEND, UTIL %, P95 %, IDLE %, WASTE: the sixth and seventh fields.
check "the table shows '-' for its idle share and waste ($row)" \
	'[ "$(awk "{ print \$6, \$7 }" <<<"$row")" = "- -" ]'
pass
