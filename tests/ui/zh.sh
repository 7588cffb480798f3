# zh.sh - run the dashboard in Chinese: source it after lib.sh, before start_dash.
# The pane gets LANG=zh_CN.UTF-8 (LC_ALL unset, as a user's shell has it) and the catalogue
# built in build/po. Without the locale the test fails and says so, never passes in English.
locale -a 2>/dev/null | grep -qix 'zh_CN\.utf-\?8' || {
	echo "FAIL: no zh_CN.UTF-8 locale on this machine: localedef -i zh_CN -f UTF-8 zh_CN.UTF-8 (scripts/install-deps does)" >&2
	exit 1
}
[ -f "${GPURENT_LOCALEDIR:?set GPURENT_LOCALEDIR to build/po}/zh_CN/LC_MESSAGES/gpurent.mo" ] || {
	echo "FAIL: no zh_CN catalogue under $GPURENT_LOCALEDIR (ninja builds it)" >&2
	exit 1
}
unset LC_ALL LANGUAGE
export LANG=zh_CN.UTF-8 GPURENT_LOCALEDIR
DASH_READY='^ 消耗 '
# The display column (a CJK character is two cells) where TEXT starts on the screen line.
col_of() {
	python3 -c '
import sys, unicodedata
line, text = sys.argv[1], sys.argv[2]
i = line.find(text)
print(-1 if i < 0 else sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line[:i]))' "$1" "$2"
}
