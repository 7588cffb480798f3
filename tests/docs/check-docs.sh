#!/bin/bash
# Fails when the command table and the man pages or the shell completions disagree.
#
#   check-docs.sh GPURENT SOURCE_ROOT
#
# Every list comes from the binary (`gpurent __complete ...`, `--fields` errors, `config list
# --all`) and from include/gpurent/error.h, never from a copy kept here.
set -u

gr=$1
src=$2
man1=$src/man/gpurent.1
man5=$src/man/gpurent-config.5
fails=0

export GPURENT_HOME
GPURENT_HOME=$(mktemp -d)
trap 'rm -rf "$GPURENT_HOME"' EXIT
unset XDG_CONFIG_HOME XDG_STATE_HOME GPURENT_PROFILE
# A fixed simulated clock, moved only by `sim advance`: the world holds still between calls.
export GPURENT_SIM_SEED=1 GPURENT_SIM_TIME=1767225600 NO_COLOR=1 COLUMNS=200

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# A check that needs a tool this machine lacks is not run, and the test then ends in a skip
# (exit 77) naming it, never in a pass.
skipped=()
have() {
	command -v "$1" >/dev/null && return 0
	skipped+=("$2 (no $1)")
	return 1
}

# The lines of a man page's section (from ".SH NAME" to the next ".SH").
section() {
	awk -v name="$2" '
		/^\.SH / { s = $0; sub(/^\.SH +/, "", s); gsub(/"/, "", s); on = (s == name); next }
		on { print }' "$1"
}

# The lines of one command's ".SS name" block under COMMANDS.
command_block() {
	section "$man1" COMMANDS | awk -v name="$1" '
		/^\.SS / { on = ($2 == name); next }
		on { print }'
}

# roff spelling of an option: --no-header -> \fB\-\-no\-header\fR
roff_opt() {
	printf '\\fB%s\\fR' "$(printf '%s' "$1" | sed 's/-/\\-/g')"
}

# ---------------------------------------------------------------- rendering
for page in "$man1" "$man5"; do
	out=$(groff -man -ww -z "$page" 2>&1) || fail "groff failed on $page"
	[ -z "$out" ] || fail "groff warns on ${page##*/}: $out"
	if have man "man -l on ${page##*/}"; then
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) ||
			fail "man -l failed on $page"
		[ -z "$out" ] || fail "man -l warns on ${page##*/}: $out"
	fi
done

# ---------------------------------------------------------------- commands and options
mapfile -t cmds < <("$gr" __complete commands)
[ "${#cmds[@]}" -gt 5 ] || fail "'__complete commands' lists only ${#cmds[@]} commands"
mapfile -t globals < <("$gr" __complete options __none)
[ "${#globals[@]}" -gt 3 ] || fail "'__complete options' lists no global options"

is_global() {
	local g
	for g in "${globals[@]}"; do
		[ "$g" = "$1" ] && return 0
	done
	return 1
}

global_text=$(section "$man1" "GLOBAL OPTIONS")
for o in "${globals[@]}"; do
	grep -qF -- "$(roff_opt "$o")" <<<"$global_text" ||
		fail "global option $o is not under GLOBAL OPTIONS in gpurent.1"
done

for c in "${cmds[@]}"; do
	block=$(command_block "$c")
	if [ -z "$block" ]; then
		fail "command '$c' has no '.SS $c' under COMMANDS in gpurent.1"
		continue
	fi
	while read -r o; do
		is_global "$o" && continue
		grep -qF -- "$(roff_opt "$o")" <<<"$block" ||
			fail "option $o of '$c' is not in its section of gpurent.1"
	done < <("$gr" __complete options "$c")
done

# Every documented command is in the table.
while read -r c; do
	printf '%s\n' "${cmds[@]}" | grep -qxF -- "$c" ||
		fail "gpurent.1 documents '$c' under COMMANDS, but the command table has no '$c'"
done < <(section "$man1" COMMANDS | awk '/^\.SS / { print $2 }')

# Every fragment was merged: its sections are in gpurent.1.
for f in "$src"/man/fragments/*.roff; do
	[ -e "$f" ] || continue
	while read -r title; do
		grep -qxF ".SH $title" "$man1" || grep -qxF ".SH \"$title\"" "$man1" ||
			fail "section '$title' of ${f##*/} is not in gpurent.1"
	done < <(sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$f")
done

# Every dialect of `sim serve` (from its own usage line) is in the synopsis and under
# --dialect in gpurent.1.
sim_block=$(command_block sim)
dialects=$("$gr" sim serve --help 2>&1 | sed -n 's/^usage: .*--dialect \([a-z|]*\) .*/\1/p')
[ -n "$dialects" ] || fail "'sim serve --help' names no dialects"
synopsis=$(grep -A1 -F '.B gpurent sim serve \-\-dialect' <<<"$sim_block" | tail -1)
dialect_opt=$(grep -F "$(roff_opt --dialect)" <<<"$sim_block")
for d in ${dialects//|/ }; do
	grep -qE "(^\.BR |\| )$d( |$)" <<<"$synopsis" ||
		fail "the synopsis of 'sim serve' in gpurent.1 lacks the dialect $d"
	grep -qF "\\fB$d\\fR" <<<"$dialect_opt" ||
		fail "--dialect of 'sim serve' in gpurent.1 lacks $d"
done

# ---------------------------------------------------------------- exit status
status_text=$(section "$man1" "EXIT STATUS")
codes=$(sed -n 's/^[[:space:]]*EXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' "$src/include/gpurent/error.h")
[ -n "$codes" ] || fail "no exit codes found in error.h"
for n in $codes; do
	grep -qxF ".B $n" <<<"$status_text" || fail "exit status $n is not under EXIT STATUS"
done

# Every real provider's GPURENT_NAME_URL is listed under ENVIRONMENT (the simulator has none).
env_text=$(section "$man1" ENVIRONMENT)
while read -r p; do
	[ "$p" = sim ] && continue
	v=GPURENT_$(tr '[:lower:]' '[:upper:]' <<<"$p")_URL
	grep -qE "^\.[BR]+ (\( )?$v( |$)" <<<"$env_text" || fail "$v is not listed under ENVIRONMENT in gpurent.1"
done < <("$gr" __complete optarg __none --provider "")

# ---------------------------------------------------------------- JSON schema
schema_text=$(section "$man1" "JSON SCHEMA")
# An unknown --fields name makes gpurent list the valid ones.
fields_of() {
	"$gr" "$@" --fields __nope__ 2>&1 >/dev/null | sed -n 's/.*(fields: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n'
}
check_keys() {
	local what=$1 k n=0
	shift
	while read -r k; do
		[ -n "$k" ] || continue
		n=$((n + 1))
		grep -qE "^\.BR? .*\<$k\>" <<<"$schema_text" ||
			fail "JSON key '$k' of $what is not under JSON SCHEMA"
	done
	[ "$n" -gt 0 ] || fail "could not read the JSON keys of $what"
}
check_keys offers < <(fields_of offers)
check_keys instances < <(fields_of ls)
offer=$("$gr" offers type=on-demand --sort price --limit 1 -o ids)
id=$("$gr" launch "$offer" -o ids 2>/dev/null)
"$gr" sim advance 10m
if [ -n "$id" ]; then
	check_keys "GPU samples" < <(fields_of metrics "$id")
else
	fail "could not launch a simulated instance to read the metrics fields"
fi
check_keys costs < <("$gr" costs -o json | jq -r 'keys[]')
offer=$("$gr" offers type=on-demand --sort price --limit 1 -o ids)
check_keys "launch --dry-run" < <("$gr" launch "$offer" --dry-run -o json | jq -r 'keys[]')

# ---------------------------------------------------------------- config keys
keys_text=$(section "$man5" KEYS)
while read -r k; do
	grep -qE "^\.B $(sed 's/[.*]/\\&/g' <<<"$k")( |$)" <<<"$keys_text" ||
		fail "config key '$k' is not under KEYS in gpurent-config.5"
done < <("$gr" config list --all -o tsv --no-header | cut -f1)
# Every documented key is known to the binary.
known_keys=$("$gr" config list --all -o tsv --no-header | cut -f1)
while read -r k; do
	grep -qxF -- "$k" <<<"$known_keys" ||
		fail "gpurent-config.5 documents '$k', but 'config list --all' does not know it"
done < <(awk '/^\.TP/ { tp = 1; next } tp && /^\.B [a-z]/ { print $2 } { tp = 0 }' <<<"$keys_text")

# The grid carbon intensities the audit ships (src/guard/audit.c) are listed, with their
# sources, under audit.grid.
grid_text=$(awk '/^\.B audit\.grid /,/^\.B audit\.target /' <<<"$keys_text" | sed 's/\\-/-/g; s/\\(em/-/g')
n=0
while IFS=$'\t' read -r prefix grams source; do
	n=$((n + 1))
	grep -qxF -- ".BR $prefix" <<<"$grid_text" && grep -qxF -- "$grams - $source" <<<"$grid_text" ||
		fail "the grid intensity of '$prefix' ($grams, $source) is not under audit.grid in gpurent-config.5"
done < <(sed -n 's/^\t{ "\([a-z-]*\)", \([0-9]*\), "\([^"]*\)" },$/\1\t\2\t\3/p' "$src/src/guard/audit.c")
[ "$n" -gt 10 ] || fail "could not read the grid table of src/guard/audit.c"

# ---------------------------------------------------------------- completions
# Offers listed last are the ones remembered for completion.
offer=$("$gr" offers --limit 3 -o ids | head -n 1)

# bash: COMP_WORDS as bash splits them (at ':' and '=' of COMP_WORDBREAKS).
bash_complete() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _gpurent; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$src/completions/bash/gpurent" "$gr" "$@"
}
got=$(bash_complete "")
for c in "${cmds[@]}"; do
	grep -qxF -- "$c" <<<"$got" || fail "bash completion does not offer the command '$c'"
	got_opts=$(bash_complete "$c" --)
	while read -r o; do
		case $o in --*) ;; *) continue ;; esac
		grep -qxF -- "$o" <<<"$got_opts" || fail "bash completion does not offer $o for '$c'"
	done < <("$gr" __complete options "$c")
done
bash_complete offers --sort pri | grep -qx price || fail "bash: '--sort pri' does not give 'price'"
bash_complete -o js | grep -qx json || fail "bash: '-o js' does not give 'json'"
bash_complete offers gp | grep -qx 'gpu=' || fail "bash: filter field 'gp' does not give 'gpu='"
if [ -n "$id" ]; then
	bash_complete show sim : i- | grep -qxF -- "${id#sim:}" ||
		fail "bash: 'show sim:i-' does not give $id"
fi
bash_complete launch "${offer%%:*}" : "$(cut -c1-3 <<<"${offer#*:}")" | grep -qxF -- "${offer#*:}" ||
	fail "bash: 'launch ${offer:0:7}' does not give $offer"
# Options with a closed set of values complete to them, and their command takes each one.
for w in instance label provider gpu; do
	bash_complete audit --by "" | grep -qxF -- "$w" || fail "bash: 'audit --by' does not give $w"
done
bash_complete group create g --burst int | grep -qx interruptible ||
	fail "bash: 'group create --burst int' does not give interruptible"
while read -r w; do
	"$gr" audit --offline --by "$w" >/dev/null 2>&1 || fail "audit refuses --by $w, which completion gives"
done < <("$gr" __complete optarg audit --by "")
while read -r w; do
	"$gr" costs --by "$w" >/dev/null 2>&1 || fail "costs refuses --by $w, which completion gives"
done < <("$gr" __complete optarg costs --by "")
while read -r w; do
	"$gr" group create "docs-$w" --gpu H100 --max 2 --target-util 50 --burst "$w" >/dev/null 2>&1 ||
		fail "group create refuses --burst $w, which completion gives"
done < <("$gr" __complete optarg group --burst "")

# zsh: the script parses, and its words come from the same calls.
if have zsh "zsh completion"; then
	zsh -n "$src/completions/zsh/_gpurent" || fail "zsh: _gpurent does not parse"
	grep -q '__complete options' "$src/completions/zsh/_gpurent" || fail "zsh: _gpurent does not ask the binary"
fi

# fish: ask its completion engine.
if have fish "fish completion"; then
	fish_complete() {
		fish -N -c 'source $argv[1]; complete -C"$argv[2]"' "$src/completions/fish/gpurent.fish" "$1" |
			cut -f1
	}
	got=$(fish_complete "$gr ")
	for c in "${cmds[@]}"; do
		grep -qxF -- "$c" <<<"$got" || fail "fish completion does not offer the command '$c'"
	done
	fish_complete "$gr offers --no-d" | grep -qx -- --no-defaults || fail "fish: '--no-d' does not give --no-defaults"
	if [ -n "$id" ]; then
		fish_complete "$gr show sim:i" | grep -qxF -- "$id" || fail "fish: 'show sim:i' does not give $id"
	fi
fi

if [ "$fails" -gt 0 ]; then
	echo "$fails disagreement(s) between the command table and the docs" >&2
	exit 1
fi
if [ ${#skipped[@]} -gt 0 ]; then
	echo "# SKIP not checked: ${skipped[*]}"
	exit 77
fi
echo "docs agree with the command table (${#cmds[@]} commands)"
