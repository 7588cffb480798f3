#!/bin/bash
# t116: tables in Chinese: translated headers, Chinese location strings, every column aligned
# by display width (a Chinese character is two cells), cut cells end in an ellipsis without
# splitting a character, and no line wider than the terminal. CSV headers stay English.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"
. "$(dirname "$0")/zh.sh"

export GPURENT_SIM_TIME=1780000000
start_serve ppio --api-key k
use_provider ppio k

# For each header cell (separated by two spaces or more), every row's cell starts at the
# same display column; prints ok, cut (aligned, some cell cut) or what is wrong.
aligned() {
	python3 -c '
import re, sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.buffer.read().decode("utf-8").splitlines()
head = lines[0]
starts = [w(head[:m.start()]) for m in re.finditer(r"(?:^|(?<=  ))\S", head)]
def cells(l):
    out, col = [], 0
    for i, ch in enumerate(l):
        if col in starts and ch != " " and (i == 0 or l[i - 1] == " "):
            out.append(col)
        col += w(ch)
    return out
bad = [l for l in lines[1:] if not set(starts[1:]).issubset(cells(l)) and
       not any(c > starts[-1] for c in cells(l))]
wide = max(w(l) for l in lines)
print("bad: %r" % bad[:2] if bad or len(lines) < 2 else
      ("cut" if any("\u2026" in l for l in lines) else "ok"), wide)'
}
fields=id,location,gpu,price_hour,type
COLUMNS=200 expect_ok zh --provider ppio offers region=cn gpus=1 --fields $fields
wide=$OUT
check "headers in Chinese" '[[ $(head -1 <<<"$wide") == *"位置"* && $(head -1 <<<"$wide") == *"每小时价格"* ]]'
check "Chinese locations kept whole" 'grep -q "华南 cn-south-[0-9]*, CN" <<<"$wide"'
read -r state width < <(aligned <<<"$wide")
check "wide: aligned by display width ($state)" '[ "$state" = ok ]'

COLUMNS=60 expect_ok zh --provider ppio offers region=cn gpus=1 --fields $fields
read -r state width < <(aligned <<<"$OUT")
check "narrow: cut, still aligned ($state)" '[ "$state" = cut ]'
check "narrow: no line wider than 60 ($width)" '[ "$width" -le 60 ]'
check "narrow: valid UTF-8 (no character split)" 'iconv -f UTF-8 -t UTF-8 <<<"$OUT" >/dev/null'

expect_ok zh --provider ppio -o csv offers region=cn gpus=1 --fields $fields
check "CSV header stays the field names" '[ "$(head -1 <<<"$OUT")" = "$fields" ]'
pass
