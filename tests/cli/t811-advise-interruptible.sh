#!/bin/bash
# Issue 29.2: an instance the provider lists as interruptible stays out of advise's mix (work
# that ran interruptible is left there, with its hours and cost), GPU counts come from the
# listing when no sample gives them, and offline nothing is invented: both are unsized.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790812800	# 2026-10-01T00:00:00Z, T below

# Seed 42, one H100-SXM-80GB each, launched at T: sim:o-000016i interruptible, bid at
# 1.294/h (20 % over 1.078), running from T + 60 until outbid at T + 7200; sim:o-000075 on
# demand at 1.89/h, running from T + 42. Advised at T + 121 min (T + 7260), by hand:
#   interruptible  7140 s = 1.98 h, 1.294 x 7140 / 3600 = 2.566433 (2.5664333)
#   on demand      7218 s = 2.005 h observed, 1 GPU all of it: base 1, peak 1,
#                  paid 1.89 x 7218 / 3600 = 3.78945
#                  1mo: 3.78945 x 0.80 = 3.03156 on the term, saving 0.75789
#                  3mo: 3.78945 x 0.70 = 2.652615 on the term, saving 1.136835 (the best)
ii=$(g launch sim:o-000016i -o ids) || fail "launch the interruptible one"
od=$(g launch sim:o-000075 -o ids) || fail "launch the on-demand one"
expect_ok g sim advance 121m
expect_ok g ls -o json
check "the interruptible one was outbid, the other runs" \
	'jq -e "(.[] | select(.id == \"$ii\") | .type == \"interruptible\" and .state == \"stopped\") and (.[] | select(.id == \"$od\") | .state == \"running\" and .gpus == 1)" <<<"$OUT" >/dev/null'

expect_ok g advise -o json
a=$OUT
# figure: advise-interruptible
check "the interruptible instance left where it ran ($(jq -c .groups <<<"$a"))" \
	'jq -e ".groups == [.groups[0]] and (.groups[0] | .gpu == \"H100-SXM-80GB\" and .interruptible_instances == 1 and .interruptible_hours == 1.98 and .interruptible_paid == 2.566433 and .unsized_instances == 0)" <<<"$a" >/dev/null'
# figure: advise-saving figure: advise-plan
check "the on-demand one in the mix, sized by the listing" \
	'jq -e "(.groups[0] | .instances == 1 and .span_hours == 2.01 and .base_gpus == 1 and .peak_gpus == 1 and .paid == 3.78945 and .best_term == \"3mo\" and .saving == 1.136835) and ([.plans[] | [.term, .term_cost, .demand_cost, .saving]] == [[\"1mo\", 3.03156, 0, 0.75789], [\"3mo\", 2.652615, 0, 1.136835]])" <<<"$a" >/dev/null'

# Offline: no listing, no sample, so neither GPU count is known and nothing is mixed.
expect_ok g advise --offline -o json
# figure: advise-unsized
check "offline, both unsized ($(jq -c .groups <<<"$OUT"))" \
	'jq -e ".groups[0] | .instances == 0 and .interruptible_instances == 0 and .unsized_instances == 2 and .unsized_paid == 6.355883 and .base_gpus == null and .saving == null" <<<"$OUT" >/dev/null'
pass
