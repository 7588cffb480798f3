#!/usr/bin/env bash
# Consistent numbers and text (issue 10 item 7): one precision for reliability, labels
# measured in characters and refused (not altered) when they hold controls, a null label
# in costs, one spelling of negative money, both spellings of a descending sort key, and
# docs that say what the tool does.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1790000000

# Reliability: JSON shows the 4 decimals that filters and sorts use.
expect_ok g offers -o json
check "reliability has 4 decimals in JSON" \
	'jq -e "any(.[]; .reliability * 10000 | round % 10 != 0)" <<<"$OUT" >/dev/null'
expect_ok g offers 'reliability>=0.9995' -o json
check "reliability>=0.9995 keeps only what JSON shows as >= 0.9995" \
	'jq -e "length > 0 and all(.[]; .reliability >= 0.9995)" <<<"$OUT" >/dev/null'
expect_ok g offers --sort reliability-,price -o json
check "--sort reliability-,price reads sorted" \
	'jq -e "[.[].reliability] as \$r | \$r == (\$r | sort | reverse)" <<<"$OUT" >/dev/null &&
	 jq -e "group_by(.reliability) | all(.[]; [.[].price_hour] as \$p | \$p == (\$p | sort))" <<<"$OUT" >/dev/null'
expect_ok g offers -n 3
check "the table shows the same 4 decimals" 'grep -Eq " (0|1)\.[0-9]{4}  " <<<"$OUT"'

# Sort keys: "-price" is "price-", "+price" is "price", everywhere a sort key is taken.
a=$(g offers --sort price- -o ids)
expect_ok g offers --sort -price -o ids
check "--sort -price is --sort price-" '[ "$OUT" = "$a" ] && [ -n "$a" ]'
expect_ok g offers --sort=+price,-reliability -o ids
check "--sort=+price,-reliability" '[ "$OUT" = "$(g offers --sort price,reliability- -o ids)" ]'
expect_ok g config set -- offers.sort -gpu_price
expect_ok g offers -o ids
check "offers.sort -gpu_price" '[ "$OUT" = "$(g offers --sort gpu_price- -o ids)" ]'
expect_ok g config unset offers.sort
expect_ok g __complete optarg offers --sort -pr
check "completion after a leading -" 'grep -qx -- -price <<<"$OUT"'
expect_ok g __complete optarg offers --sort pr
check "completion without a sign" 'grep -qx price <<<"$OUT"'
bash_complete() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _gpurent; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$SRCDIR/completions/bash/gpurent" "$GPURENT" "$@"
}
check "bash: '--sort -pr' gives -price" 'bash_complete offers --sort -pr | grep -qx -- -price'
check "bash: '--sort price,-gp' gives price,-gpu_price" \
	'bash_complete offers --sort price,-gp | grep -qx -- price,-gpu_price'
if command -v fish >/dev/null; then
	check "fish: '--sort -pr' gives -price" \
		'fish -N -c "source \$argv[1]; complete -C\"\$argv[2]\"" "$SRCDIR/completions/fish/gpurent.fish" "$GPURENT offers --sort -pr" | cut -f1 | grep -qx -- -price'
fi

# Labels: characters, not bytes; controls refused, never silently altered.
offer=$(g offers type=on-demand -o ids -n 1)
e32=$(printf 'é%.0s' {1..32})
expect_ok g launch "$offer" --label "$e32"
id=$OUT
expect_ok g show "$id" -o json
check "32 x é kept whole" '[ "$(jq -r .label <<<"$OUT")" = "$e32" ]'
e63=$(printf '東%.0s' {1..63})
expect_ok g launch "$offer" --label "$e63" --dry-run
expect_rc 2 g launch "$offer" --label "${e63}x"
check "64 characters refused in characters" '[[ $ERR == *"at most 63 characters"*"64"* ]]'
expect_rc 2 g launch "$offer" --label $'two\nlines'
check "a newline is refused" '[[ $ERR == *newline* ]]'
expect_rc 2 g launch "$offer" --label $'red\e[31m'
check "ESC is refused" '[[ $ERR == *ESC* ]]'
expect_rc 2 g launch "$offer" --label $'bad\xffbyte'
check "invalid UTF-8 is refused" '[[ $ERR == *UTF-8* ]]'
expect_ok g ls -o ids
check "no refused launch left an instance" '[ "$OUT" = "$id" ]'

# costs --by label: an unlabelled instance is null, apart from a real label "(none)".
expect_ok g launch "$offer" --label "(none)"
expect_ok g launch "$offer"
expect_ok g sim advance 10m
expect_ok g costs --by label -o json
check "unlabelled is null, '(none)' is a label of its own" \
	'jq -e "[.rows[].key] | (map(select(. == null)) | length) == 1 and (map(select(. == \"(none)\")) | length) == 1" <<<"$OUT" >/dev/null'
expect_ok g costs --by label -o csv
check "csv: unlabelled is empty, '(none)' itself" 'grep -q "^,[0-9]" <<<"$OUT" && grep -q "^(none)," <<<"$OUT"'
expect_ok g costs --by label
check "table: unlabelled shows as -, like ls" 'grep -q "^- " <<<"$OUT" && grep -q "^(none) " <<<"$OUT"'

# The docs say what the tool does: the simulator's offer count, the launch disk default and
# the ellipsis, alike in --help, the man page and the README.
man=$SRCDIR/man/gpurent.1
n=$(sed -n 's/.*marketplace of \([0-9]*\) offers.*/\1/p' "$man")
check "man page: one offer count ($n)" '[ -n "$n" ] && grep -q "simulated offers (default $n)" "$man"'
check "README: the same count" 'grep -q "marketplace of $n offers" "$SRCDIR/README.md"'
a=$(g offers -o ids)
expect_ok env GPURENT_SIM_OFFERS=$n "$GPURENT" offers -o ids
check "GPURENT_SIM_OFFERS=$n is the default market" '[ "$OUT" = "$a" ]'
expect_ok env GPURENT_SIM_OFFERS=$((n - 1)) "$GPURENT" offers -o ids
check "and one fewer is not" '[ "$OUT" != "$a" ]'
disk=$(tr '\n' ' ' <"$man" | sed -n 's/.*provider.s default: \([0-9]*\) GB on sim.*/\1/p')
expect_ok g launch --help
check "--help gives the man page's disk default ($disk GB)" '[ -n "$disk" ] && [[ $OUT == *"$disk GB on sim"* ]]'
expect_ok launch_fresh type=on-demand -- --label disk
expect_ok g show "$OUT" -o json
check "a launch without --disk gets it" '[ "$(jq .disk_gb <<<"$OUT")" = "$disk" ]'
check "man page names the ellipsis the tables use" 'grep -q "u2026" "$man" && ! grep -q "ending in \\\\(lq\\\\&\\.\\.\\." "$man"'
expect_ok env COLUMNS=75 "$GPURENT" ls
check "tables cut with …" 'grep -q "…" <<<"$OUT"'

# Negative money: "-$1.23" wherever money is text, a negative number in JSON.
big=$(g offers type=on-demand --sort price- -o ids -n 1)
expect_ok g launch "$big" --force
expect_ok g sim advance 2d
expect_ok g sim status
check "sim status: a negative balance as -\$" 'grep -Eq "^balance +-\\\$[0-9]+\.[0-9]{2}$" <<<"$OUT"'
expect_ok g sim status -o json
check "sim status JSON: a negative number" 'jq -e ".balance < 0" <<<"$OUT" >/dev/null'
expect_ok g providers
check "providers: the same spelling" 'grep -Eq " -\\\$[0-9]" <<<"$OUT" && ! grep -q "\$-" <<<"$OUT"'

pass
