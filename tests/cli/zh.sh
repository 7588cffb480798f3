# zh.sh - run gpurent in Chinese: source it after lib.sh.
#   zh CMD...   like g, but under LANG=zh_CN.UTF-8 (LC_ALL and LANGUAGE unset, as a user's
#               shell would have them), with the catalogue built in build/po
# The locale must exist (scripts/install-deps generates it): without it the test fails and
# says so, never passes in English.
locale -a 2>/dev/null | grep -qix 'zh_CN\.utf-\?8' ||
	fail "no zh_CN.UTF-8 locale on this machine: localedef -i zh_CN -f UTF-8 zh_CN.UTF-8 (scripts/install-deps does)"
[ -f "${GPURENT_LOCALEDIR:?set GPURENT_LOCALEDIR to build/po}/zh_CN/LC_MESSAGES/gpurent.mo" ] ||
	fail "no zh_CN catalogue under $GPURENT_LOCALEDIR (ninja builds it)"
zh() {
	env -u LC_ALL -u LANGUAGE LANG=zh_CN.UTF-8 "$GPURENT" "$@"
}
