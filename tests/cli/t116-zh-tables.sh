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

# Every header cell's display column (a CJK character is two cells) is where a cell starts
# on every row: prints ok, or cut when aligned with some cell cut, then the widest line.
aligned() {
	python3 -c '
import re, sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.buffer.read().decode("utf-8").splitlines()
def starts(l):
    return {w(l[:m.start()]) for m in re.finditer(r"(?:^|(?<=  ))\S", l)}
want = starts(lines[0])
bad = [l for l in lines[1:] if not want <= starts(l)]
state = "bad: %r" % bad[:2] if bad or len(lines) < 2 else \
    ("cut" if any("\u2026" in l for l in lines) else "ok")
print(state.replace(" ", "_"), max(w(l) for l in lines))'
}
# Left-aligned columns only: a right-aligned one starts wherever its number does.
fields=id,location,gpu,type
COLUMNS=200 expect_ok zh --provider ppio offers region=cn gpus=1 --fields $fields
wide=$OUT
check "headers in Chinese" '[[ $(head -1 <<<"$wide") == *"位置"*"类型"* ]]'
check "Chinese locations kept whole" 'grep -q "华南 cn-south-[0-9]*, CN" <<<"$wide"'
read -r state width < <(aligned <<<"$wide")
check "wide: aligned by display width ($state)" '[ "$state" = ok ]'

# Narrow: the location is cut (to its minimum of 8 cells), between characters.
COLUMNS=40 expect_ok zh --provider ppio offers region=cn gpus=1 --fields location,gpu,type
read -r state width < <(aligned <<<"$OUT")
check "narrow: cut, still aligned ($state)" '[ "$state" = cut ]'
check "narrow: no line wider than 40 ($width)" '[ "$width" -le 40 ]'
check "narrow: valid UTF-8 (no character split)" 'iconv -f UTF-8 -t UTF-8 <<<"$OUT" >/dev/null'
check "narrow: Chinese kept before the cut" 'grep -q "^华南 cn…" <<<"$OUT"'

expect_ok zh --provider ppio -o csv offers region=cn gpus=1 --fields $fields
check "CSV header stays the field names" '[ "$(head -1 <<<"$OUT")" = "$fields" ]'
pass
