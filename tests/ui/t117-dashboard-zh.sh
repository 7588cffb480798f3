#!/bin/bash
# t117: the dashboard in Chinese (LANG=zh_CN.UTF-8): translated header, tabs and tables, and
# every column aligned by display width (a Chinese character takes two cells), read back
# from the captured screen: in the offers table, the instance's details, the costs view's
# columns and the events view's header.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/zh.sh"

offer=$("$G" -o ids offers type=on-demand --limit 1 2>/dev/null)
inst=$("$G" -o ids launch --wait --timeout 120 "$offer" 2>/dev/null)
case $inst in sim:i-*) ;; *) echo "launch failed" >&2; exit 1 ;; esac

# Every screen line matching ROW_RE has COLUMN_TEXT's match at the display column where
# HEADER starts on the header line (the first line holding HEADER); prints ok or the lines.
aligned() {
	screen | python3 -c '
import re, sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
head, row_re, cell_re = sys.argv[1:4]
lines = sys.stdin.read().splitlines()
hl = next((l for l in lines if head in l), None)
if hl is None:
    print("no header %s" % head); sys.exit()
want = w(hl[:hl.index(head)])
rows = [l for l in lines if re.search(row_re, l)]
bad = [l for l in rows if w(l[:re.search(cell_re, l).start()]) != want]
print("ok" if rows and not bad else "rows %d, misaligned: %r" % (len(rows), bad[:2]))' "$@"
}

start_dash 140 40
wait_for '^  sim:o-[0-9]+' 50 && ok "offers listed" || fail "offers: $(screen)"
row 0 | grep -q '^ 消耗 \$0\.[0-9]*/时 | 今日 ' && ok "header in Chinese" || fail "header: $(row 0)"
row 1 | grep -q '1 报价   2 实例' && ok "tabs in Chinese" || fail "tabs: $(row 1)"
wait_for '个报价' 10 && ok "offer count in Chinese" || fail "count: $(row 1)"
row 39 | grep -q 'q 退出' && ok "key hints in Chinese" || fail "keys: $(row 39)"
for h in 'GPU:(RTX|T4|A|H|L|B|MI)[0-9A-Z-]*' '类型:(on-demand|interruptible)' '地区:(na|eu|as|sa|oc|af|me)-[a-z]+ '; do
	r=$(aligned "${h%%:*}" '^  sim:o-' "${h#*:}")
	[ "$r" = ok ] && ok "offers: ${h%%:*} aligned" || fail "offers ${h%%:*}: $r"
done

keys 2
wait_for "^  $inst" 50 && ok "instances listed" || fail "instances: $(screen)"
r=$(aligned '状态' "^  $inst" 'running')
[ "$r" = ok ] && ok "instances: 状态 aligned" || fail "instances: $r"
keys Enter
wait_for '^ 报价 +sim:o-' 20 && ok "details in Chinese" || fail "details: $(screen)"
# Details: labels padded to 14 cells by display width, so every value starts in one column.
cols=$(screen | python3 -c '
import re, sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
for l in sys.stdin.read().splitlines():
    m = re.match(r"^ (ID|平台|标签|状态|卡数|费用|报价|镜像|创建时间) +(\S)", l)
    if m:
        print(w(l[:m.start(2)]))' | sort -u | tr '\n' ' ')
[ "$cols" = "16 " ] && ok "details: every value at column 16 after Chinese labels" ||
	fail "details: values at columns $cols: $(screen)"
keys q

keys 4
wait_for '^  消耗速度 +每小时 \$0\.[0-9]+' 50 && ok "costs view in Chinese" || fail "costs: $(screen)"
wait_for '^  sim +\$[0-9.]+ +\$0\.[0-9]+' 20 || fail "by provider: $(screen)"
# Right-aligned money under right-aligned headers: the same end column.
ends=$(screen | python3 -c '
import re, sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.read().splitlines()
h = next(l for l in lines if "按平台" in l)
r = next(l for l in lines if re.match(r"^  sim ", l))
m = re.match(r"^  sim +(\$[0-9.]+)", r)
print(w(h[:h.index("已花费") + 3]), w(r[:m.end(1)]))')
[ "${ends% *}" = "${ends#* }" ] && ok "costs: 已花费 over its amounts" || fail "costs columns end at $ends: $(screen)"
keys 5
wait_for '^ 时间 +级别 +事件' 20 && ok "events header in Chinese" || fail "events: $(screen)"
# The events header is padded to the widths of its rows: 16, 6, 16, 14 and 12 cells.
line=$(screen | grep '^ 时间')
cols="$(col_of "$line" 级别) $(col_of "$line" 事件) $(col_of "$line" 实例) $(col_of "$line" 标签) $(col_of "$line" 消息)"
[ "$cols" = "18 25 42 57 70" ] && ok "events header at the row columns" || fail "events header columns $cols: $line"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
finish
