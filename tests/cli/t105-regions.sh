#!/bin/bash
# Chinese regions (issue 18 part 5): region=cn (and china, 中国) names PPIO's cn-* clusters
# and machines located in CN, which are in Asia too; a provider's own cluster names and a
# place named in Chinese select what they name. Chinese location strings reach JSON whole,
# and tables align them by display width, cutting between characters, never inside one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
ppio_beside_sim

expect_ok g -o json offers gpus=1 --limit 0
all=$OUT
check "both providers" '[ "$(jq "[.[].provider] | unique | length" <<<"$all")" = 2 ]'
expect_ok g -o json offers region=cn gpus=1 --limit 0
check "region=cn: some" '[ "$(jq length <<<"$OUT")" -gt 0 ]'
check "region=cn: only Chinese regions" 'jq -e "all(.[]; (.region | startswith(\"cn-\")) and (.location | endswith(\", CN\")))" <<<"$OUT" >/dev/null'
check "region=cn: every one of them" \
    '[ "$(jq length <<<"$OUT")" = "$(jq "[.[] | select(.region | startswith(\"cn-\"))] | length" <<<"$all")" ]'
cn=$(jq length <<<"$OUT")
for alias in china CN '中国'; do
	expect_ok g -o json offers "region=$alias" gpus=1 --limit 0
	check "region=$alias is region=cn" '[ "$(jq length <<<"$OUT")" = "$cn" ]'
done
expect_ok g -o json offers region=cn-south gpus=1 --limit 0
check "a cluster prefix" 'jq -e "length > 0 and all(.[]; .region | test(\"^cn-south-[0-9]+$\"))" <<<"$OUT" >/dev/null'
expect_ok g -o json offers region=cn-south-1 gpus=1 --limit 0
check "a cluster name" 'jq -e "length > 0 and all(.[]; .region == \"cn-south-1\")" <<<"$OUT" >/dev/null'
expect_ok g -o json offers 'region=华南' gpus=1 --limit 0
check "a place named in Chinese" 'jq -e "length > 0 and all(.[]; .location | startswith(\"华南 \"))" <<<"$OUT" >/dev/null'
check "the location whole in JSON" 'jq -e ".[0].location | test(\"^华南 cn-south-[0-9]+, CN$\")" <<<"$OUT" >/dev/null'
expect_ok g -o json offers region=as gpus=1 --limit 0
check "China is in Asia" 'jq -e "any(.[]; .provider == \"ppio\") and any(.[]; .provider == \"sim\")" <<<"$OUT" >/dev/null'
expect_ok g -o json offers region=eu gpus=1 --limit 0
check "and not in Europe" 'jq -e "all(.[]; .provider == \"sim\")" <<<"$OUT" >/dev/null'

# Alignment by display width: each row's TYPE cell starts where the header's does, counted
# in terminal cells (a Chinese character is two).
aligned() {
	python3 -c '
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = sys.stdin.buffer.read().decode("utf-8").splitlines()
col = w(lines[0][:lines[0].index("TYPE")])
bad = [l for l in lines[1:] if w(l[:max(l.rfind("on-demand"), l.rfind("interruptible"))]) != col]
cut = [l for l in lines[1:] if "\u2026" in l]
print("bad" if bad or not lines[1:] else ("cut" if cut else "ok"))'
}
expect_ok env COLUMNS=200 "$GPURENT" --provider ppio offers region=cn gpus=1 --fields id,location,type
check "wide: Chinese kept, aligned" '[ "$(aligned <<<"$OUT")" = ok ] && grep -q "华" <<<"$OUT"'
expect_ok env COLUMNS=70 "$GPURENT" --provider ppio offers region=cn gpus=1 --fields id,location,type
check "narrow: cut with an ellipsis, aligned, valid UTF-8" '[ "$(aligned <<<"$OUT")" = cut ]'
check "no line wider than the terminal" \
    '[ "$(python3 -c "import sys, unicodedata; print(max(sum(2 if unicodedata.east_asian_width(c) in \"WF\" else 1 for c in l) for l in sys.stdin.read().splitlines()))" <<<"$OUT")" -le 70 ]'
pass
