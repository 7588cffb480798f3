#!/usr/bin/env bash
# A config line gpurent cannot read (issue 24 item 8): `config` still runs (path, list, get,
# and the set or unset that mends it, keeping every other line as written); every other
# command refuses with the file, the line and the command that mends it.
. "$(dirname "$0")/lib.sh"
cfg=$(g config path)
check "config path with no file" '[ -n "$cfg" ]'
mkdir -p "$(dirname "$cfg")"
printf '# mine\nproviders = sim\nunknown.key = 5\nbudget.day = abc\n' >"$cfg"

expect_rc 2 g offers -n 1
check "another command names the file, the line and the mend" \
	'[[ $ERR == *"$cfg:3: unknown config key '"'unknown.key'"'"* && $ERR == *"'"'gpurent config unset unknown.key'"'"* ]]'
expect_ok g config path
check "config path runs" '[ "$OUT" = "$cfg" ]'
expect_ok g config list
check "config list shows what it can read" '[[ $OUT == *providers*sim* && $OUT != *unknown.key* && $OUT != *budget.day* ]]'
check "and says what it cannot" '[[ $ERR == *"$cfg:3: unknown config key"* ]]'
expect_ok g config get providers
check "config get reads the good lines" '[ "$OUT" = sim ]'
expect_rc 3 g config get budget.day
check "an unreadable value is not read" '[ -z "$OUT" ]'

expect_ok g config unset unknown.key
check "unset removes the unknown key's line" '! grep -q unknown.key "$cfg"'
check "and names the next one, at its new line" \
	'[[ $ERR == *"$cfg:3: '"'budget.day'"' needs an amount"* && $ERR == *"'"'gpurent config set budget.day VALUE'"'"* ]]'
expect_rc 2 g ls
check "still refused elsewhere" '[[ $ERR == *"$cfg:3:"* ]]'
expect_ok g config set budget.day 5
check "set mends it: nothing more to say" '[ -z "$ERR" ]'
check "the file keeps the other lines as written" \
	'[ "$(cat "$cfg")" = "$(printf "# mine\nproviders = sim\nbudget.day = 5")" ]'
expect_ok g offers -n 1
expect_ok g config get budget.day
check "the mended value is read" '[ "$OUT" = 5 ]'

# A key twice, the second unreadable: one set leaves one line, the value set.
printf 'budget.day = 5\n[profile p]\nbudget.month = 9\nbudget.month = lots\n' >"$cfg"
expect_rc 2 g ls
check "a key in a profile: the mend names the profile" \
	'[[ $ERR == *"$cfg:4:"* && $ERR == *"'"'gpurent config set --in p budget.month VALUE'"'"* ]]'
expect_ok g config set --in p budget.month 7
check "one line for the key, with the value set" \
	'[ "$(grep -c budget.month "$cfg")" = 1 ] && grep -qx "budget.month = 7" "$cfg"'
expect_ok g --profile p config get budget.month
check "and it is read" '[ "$OUT" = 7 ]'

# What only an edit can mend is kept as written; the keys under a header that cannot be
# read belong to no profile.
printf 'not a setting\nbudget.day = 5\n[profile a b]\nbudget.month = 1\n' >"$cfg"
expect_rc 2 g ls
check "a line that is no setting: edit it" '[[ $ERR == *"$cfg:1: expected"*"edit or remove that line"* ]]'
expect_ok g config set budget.day 6
check "set keeps the unreadable lines as written" \
	'[ "$(cat "$cfg")" = "$(printf "not a setting\nbudget.day = 6\n[profile a b]\nbudget.month = 1")" ]'
check "set warns about the line still unreadable" '[[ $ERR == *"$cfg:1: expected"* ]]'
sed -i 1d "$cfg"
expect_rc 2 g ls
check "a header that cannot be read" '[[ $ERR == *"$cfg:2: expected '"'[profile NAME]'"'"* ]]'
expect_rc 3 g config get budget.month
check "its keys are not read as the top level's" '[ -z "$OUT" ]'
pass
