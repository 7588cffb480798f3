#!/bin/bash
# t119: the Chinese catalogue is complete and well formed: msgfmt -c passes, nothing is fuzzy
# or untranslated, every string the sources mark (extracted again here with the keywords of
# po/meson.build, passed as arguments) has its translation, and po/POTFILES lists every
# source file. After a merge: scripts/update-po, translate, and this passes again.
. "$(dirname "$0")/lib.sh"
PO=$SRCDIR/po/zh_CN.po
for tool in msgfmt msgattrib msgcmp xgettext; do
	command -v $tool >/dev/null || fail "$tool is missing (apt-get install gettext)"
done

expect_ok msgfmt -c --check-format -o "$TMP/zh_CN.mo" "$PO"
CHECKS=$((CHECKS + 1))
fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$PO" | grep -c '^msgid ')
check "no fuzzy entries ($fuzzy)" '[ "$fuzzy" = 0 ]'
# msgattrib prints the header (msgid "") with the untranslated when there are any.
untranslated=$(msgattrib --untranslated --no-obsolete "$PO" | grep '^msgid ' | grep -vc '^msgid ""$')
check "no untranslated entries ($untranslated; msgattrib --untranslated po/zh_CN.po)" \
	'[ "$untranslated" = 0 ]'

# po/POTFILES is every C source and header; a file missing from it hides its strings.
( cd "$SRCDIR" && find src include -name '*.[ch]' | LC_ALL=C sort ) > "$TMP/sources"
LC_ALL=C sort "$SRCDIR/po/POTFILES" > "$TMP/listed"
missing=$(comm -23 "$TMP/sources" "$TMP/listed" | tr '\n' ' ')
check "po/POTFILES lists every source (missing: $missing; scripts/update-po)" '[ -z "$missing" ]'

# Every string marked in the sources today has a translation (msgcmp: untranslated = missing).
( cd "$SRCDIR" && xgettext "$@" --files-from=po/POTFILES -o "$TMP/gpurent.pot" ) ||
	fail "xgettext failed"
expect_ok msgcmp "$PO" "$TMP/gpurent.pot"
pass
