#!/bin/bash
# t115: under LANG=zh_CN.UTF-8 help, errors and usage messages are in Chinese, with the same
# exit statuses as under C, and -o json is byte for byte what C prints (the script contract).
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
id=$(launch_fresh type=on-demand -- --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'
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
pass
