#!/bin/bash
# bench/mutants-all.sh [--section TITLE | NAME...] - the mutants of tests/mutants/LIST each
# against the whole test suite (scripts/mutants --all), not only the tests each names.
#
#   bench/mutants-all.sh                          every mutant in the list
#   bench/mutants-all.sh --section 'issue 33'     those under the list's '## issue 33...'
#   bench/mutants-all.sh NAME...                  just these
#
# A mutant caught only with --all is caught by a test it does not name (add that test to its
# tests: line); one missed with --all is missed by the whole suite. The table goes to stdout
# and to mutants-all.txt in the current directory, as markdown rows for tests/README.md to
# mutants-all.md. It takes hours: each mutant is a rebuild and a run of every test (about
# 15 min on two shared cores, so some 25 h for the 100 mutants), so run it on a machine of
# its own. The exit status is scripts/mutants': 0 only when every mutant was caught.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/tests/mutants/LIST
names=()
if [ "${1:-}" = --section ]; then
	title=${2:?usage: bench/mutants-all.sh --section TITLE}
	# The mutants from the section's '## TITLE' line to the next '## ' line.
	mapfile -t names < <(awk -v t="## $title" 'index($0, t) == 1 { on = 1; next }
		/^## / { on = 0 } on && /^mutant: / { print substr($0, 9) }' "$list")
	[ ${#names[@]} -gt 0 ] || { echo "mutants-all: no section '## $title' in $list" >&2; exit 2; }
else
	names=("$@")
fi
"$root/scripts/mutants" --all "${names[@]+"${names[@]}"}" | tee mutants-all.txt
rc=${PIPESTATUS[0]}
# The rows of scripts/mutants' table ("NAME RESULT TIME BY..." then "    (what)") as markdown.
awk '/^MUTANT / { on = 1; next } on && /^[a-z]/ {
		name = $1; res = $2; from = 4
		if (res == "NOT" || res == "NO") { res = res " " $3; from = 5 }
		by = ""
		for (i = from; i <= NF; i++) by = by (by ? " " : "") $i
		if (res != "caught") by = "-"
		getline what; sub(/^ *\(/, "", what); sub(/\)$/, "", what)
		printf "| `%s` | %s | %s | %s |\n", name, what, res, by
	}' mutants-all.txt >mutants-all.md
exit "$rc"
