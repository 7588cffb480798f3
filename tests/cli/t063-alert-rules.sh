#!/usr/bin/env bash
# contrib/prometheus/alerts.yml: promtool accepts the rules, and its unit tests
# (tests/data/prometheus/alerts_test.yml) see each alert fire on the exporter's series
# and stay quiet where it must (a stopped instance's idle GPU, a cool GPU, fresh samples).
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || fail "promtool is missing: run scripts/install-deps"
rules=$SRCDIR/contrib/prometheus/alerts.yml
expect_ok promtool check rules "$rules"
check "eight rules" '[[ $OUT == *"SUCCESS: 8 rules found"* ]]'
cd "$SRCDIR/tests/data/prometheus" || fail "no test data"
expect_ok promtool test rules alerts_test.yml
check "the rule tests passed" '[[ $OUT == *SUCCESS* ]]'
# Every alert is exercised by a test case.
for a in $(sed -n 's/^ *- alert: //p' "$rules"); do
	check "a test case for $a" 'grep -q "alertname: $a\$" alerts_test.yml'
done
# A broken rule file is refused (the check can fail).
sed 's/max_over_time(DCGM_FI_DEV_GPU_UTIL\[30m\])/max_over_time(DCGM_FI_DEV_GPU_UTIL[30m]/' "$rules" >"$TMP/broken.yml"
expect_rc 1 promtool check rules "$TMP/broken.yml"
pass
