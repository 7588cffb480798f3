#!/bin/bash
# t115: under LANG=zh_CN.UTF-8 help, errors and usage messages are in Chinese, with the same
# exit statuses as under C, and -o json is byte for byte what C prints (the script contract);
# so are a launch's dry run, the costs view, and the watcher's output and journal.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/zh.sh"
export GPURENT_SIM_TIME=1780000000

expect_ok zh --help
check "overview in Chinese" '[[ $OUT == *"用法：gpurent [全局选项] 命令 [参数]"* && $OUT == *"跨平台查找、租用和监控 GPU"* ]]'
check "command summaries in Chinese" '[[ $OUT == *"搜索各平台的 GPU 报价"* ]]'
check "command names stay English" '[[ $OUT == *"  offers "* && $OUT == *"  launch "* ]]'
check "global option help in Chinese" '[[ $OUT == *"--no-header"*"表格、CSV 和 TSV 不输出表头"* ]]'
expect_ok zh offers --help
check "a command's help in Chinese" '[[ $OUT == *"筛选条件"* && $OUT == *"选项："* ]]'
check "its option help in Chinese" '[[ $OUT == *"--max-age DURATION"* && $OUT == *"向每个平台询价"* ]]'
check "flags and the filter grammar stay English" '[[ $OUT == *"gpu=h100,h200 gpus>=8 price<=25"* ]]'

# Errors: translated by gr_fail itself, same status as in C; quoted values untouched.
for args in "offers gpu=nonsense" "show sim:i-999999" "launch sim:o-999999 --dry-run" \
	    "offers --sort speed" "nosuchcommand" "--output yaml offers" "launch"; do
	# shellcheck disable=SC2086
	run g $args
	c_rc=$RC c_err=$ERR
	# shellcheck disable=SC2086
	run zh $args
	CHECKS=$((CHECKS + 1))
	[ "$RC" = "$c_rc" ] || fail "'$args': status $RC in Chinese, $c_rc in C"
	check "'$args': a Chinese message ($ERR)" '[ "$ERR" != "$c_err" ] && LC_ALL=C.UTF-8 grep -qP "\p{Han}" <<<"$ERR"'
done
run zh offers gpu=nonsense
check "the value is quoted as given" '[[ $ERR == *"nonsense"* && $ERR == *"未知的 GPU"* ]]'
run zh show sim:i-999999
check "not found in Chinese" '[[ $ERR == *"sim:i-999999"* ]] && [ "$RC" = 3 ]'

# JSON, CSV and ids are the script contract: byte-identical whatever the language.
# The simulated clock stands still (GPURENT_SIM_TIME): it boots when the clock is moved.
id=$(launch_fresh type=on-demand --)
check "launched" '[[ $id == sim:i-* ]]'
expect_ok g sim advance 2m
check "running" '[ "$(g -o json show "$id" | jq -r .state)" = running ]'
# Offers carry fetched_at: both languages answer from the one kept answer (--max-age).
g -o json offers --limit 20 >/dev/null 2>&1 || fail "offers"
for args in "-o json offers --limit 20 --max-age 1h" "-o json ls" "-o json gpus" "-o json costs" \
	    "-o csv offers --limit 20 --max-age 1h" "-o json providers" "-o json show $id"; do
	# shellcheck disable=SC2086
	g $args >"$TMP/c.out" 2>/dev/null
	c_rc=$?
	# shellcheck disable=SC2086
	zh $args >"$TMP/zh.out" 2>/dev/null
	zh_rc=$?
	check "'$args': the same status in Chinese ($zh_rc, $c_rc)" '[ "$zh_rc" = "$c_rc" ]'
	check "'$args': identical output in Chinese" 'cmp -s "$TMP/c.out" "$TMP/zh.out" && [ -s "$TMP/c.out" ]'
done

# What a renter reads besides help and errors: a launch's dry run, the costs of one
# currency, and the watcher's output and journal.
offer=$(g -o ids offers gpus=1 type=on-demand --max-age 1h | head -n 1)
expect_ok zh launch "$offer" --dry-run
check "launch --dry-run in Chinese: $OUT" \
	'[[ $OUT == "将租用 $offer：1 卡 "* && $OUT == *"费用：每小时 \$"*"，每月 \$"*"（按 730 小时计）"* ]]'
expect_ok zh costs
check "costs labelled in Chinese, not by JSON keys: $OUT" \
	'[[ $OUT == *"已花费 "*"本月预计 "* && $OUT != *burn_hour* && $OUT != *projected_month* ]]'
check "the provider's own figures in Chinese: $OUT" '[[ $OUT == *"sim 显示：余额 \$"*"，每小时消耗 \$"* ]]'
blind=$(g launch "$offer" --env SIM_WORKLOAD=unreported --label blind) || fail "launch"
expect_ok g sim advance 2m
expect_ok zh watch --once --interval 1m
check "the watcher in Chinese: $OUT" \
	'[[ $OUT == *"info unobserved $blind: GPU 利用率未知：不算作空闲"* ]]'
expect_ok zh events
check "the journal in Chinese, kinds in English: $OUT" \
	'[[ $OUT == *"事件"*"消息"* && $OUT == *"unobserved"*"$blind"*"GPU 利用率未知：不算作空闲"* ]]'
expect_ok g -o json events
check "the JSON journal keeps its keys and kind" \
	'jq -e --arg i "$blind" "[.[] | select(.kind == \"unobserved\" and .instance_id == \$i)] | length == 1" <<<"$OUT" >/dev/null'
pass
