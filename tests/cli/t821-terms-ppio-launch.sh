#!/bin/bash
# Issue 29.1: `launch OFFER --term 1mo` on PPIO (its prepaid billing mode, at creation)
# through the launch door: the budgets count the whole term price at once; the ledger has it
# once, as a term that `costs` spreads (burning its hourly equivalent, not the on-demand
# price on top); the provider refuses to release it before the term ends.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
# The market as it stood at one fixed moment, so that its first RTX 3090 is the one priced below.
export GPURENT_SIM_TIME=1767225600

start_serve ppio --api-key kp
use_provider ppio kp
expect_ok g config set providers ppio

# An RTX 3090 GPU-hour is ¥1.152 on demand ($0.16 at 7.2); a prepaid month at 20 % off
# ¥0.9216/h, ¥663.552 for 720 h (the simulated account's $500 pays for it).
expect_ok g -o json offers gpu=rtx3090 gpus=1 type=on-demand
offers=$(jq -r '.[0:12][].id' <<<"$OUT")
first=${offers%%$'\n'*}
# figure: term-budget
expect_ok g config set budget.day '600 CNY'
expect_rc 9 g launch "$first" --term 1mo --image x --label t821
check "a day's budget of ¥600 refuses a ¥663.552 term, whatever its hourly price" \
	'[[ "$ERR" == *budget.day* ]] && [[ "$ERR" == *"¥663.55"* ]]'
expect_ok g config set budget.day '700 CNY'
launched=0
for off in $offers; do
	run g launch "$off" --term 1mo --image x --label t821
	case $RC in
	0) launched=1; id=$OUT; break ;;
	7) ;;
	*) fail "launch of $off --term 1mo exited $RC: $ERR" ;;
	esac
done
check "a prepaid month was rented" '[ "$launched" = 1 ]'
check "it said what is paid at once" '[[ "$ERR" == *"1-month term, paid at once: ¥663.55 (¥0.922/h, 20.00% off on demand)"* ]]'
expect_ok serve_g ppio sim advance 2m
wait_until 100 'g ls -o json 2>/dev/null | jq -e --arg id "$id" ".[] | select(.id == \$id) | .state == \"running\" and .type == \"reserved\"" >/dev/null'
check "the ledger has the term once: ¥0.9216/h for 720 h, ¥663.552" \
	'[ "$(sqlite3 "$DB" "SELECT group_concat(rate_hour || \" \" || (end_ts - start_ts) || \" \" || currency) FROM ledger WHERE kind = 3")" = "921600 2592000 CNY" ]'
expect_ok g costs -o json
check "costs burns the term's ¥0.9216/h, no hourly price on top ($(jq -c .currencies <<<"$OUT"))" \
	'[ "$(jq -c ".currencies[] | select(.currency == \"CNY\") | [.burn_hour, .provisioning_hour]" <<<"$OUT")" = "[0.9216,0]" ]'
run g destroy --yes "$id"
check "PPIO keeps a prepaid instance to its term's end" '[ "$RC" != 0 ] && [[ "$ERR" == *PREPAID_INSTANCE_NOT_SUPPORT_RELEASE* ]]'
pass
