#!/usr/bin/env bash
# The README's tour, run as written: every line of its ```sh block, taken from README.md
# itself, against the simulator running 100 times faster than real time. The lines that
# need a person are run without one and must end cleanly: metrics --follow until a
# Ctrl-C (SIGINT) after a few seconds, destroy on a pseudo-terminal answering y, the
# dashboard with no terminal (it must refuse, status 2), the shell reading an empty stdin.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_SPEED=100
unset GPURENT_SIM_SEED		# the world a new user sees

readme=${SRCDIR:?set SRCDIR to the source root}/README.md
# The block between "## A tour" and the end of its first ```sh fence, comments dropped.
mapfile -t lines < <(awk '/^## A tour/ { t = 1 } t && /^```sh/ { on = 1; next }
	on && /^```/ { exit } on' "$readme" | sed -E 's/[[:space:]]+#.*$//')
check "the tour has its lines (${#lines[@]})" '[ "${#lines[@]}" -ge 8 ]'

# The tour says "gpurent": that is the binary under test.
mkdir -p "$TMP/bin"
ln -s "$GPURENT" "$TMP/bin/gpurent"
export PATH="$TMP/bin:$PATH"

for line in "${lines[@]}"; do
	case $line in
	*--follow*)
		# Evaluated here so that the tour's variables ($id) are set.
		eval "timeout --preserve-status -s INT 4 $line" >"$TMP/step.out" 2>"$TMP/step.err" </dev/null
		rc=$?
		check "'$line' ran until interrupted, then exited 0 ($rc: $(head -c 300 "$TMP/step.err"))" \
			'[ $rc = 0 ] && [ -s "$TMP/step.out" ]' ;;
	'gpurent destroy '*)
		if ! command -v script >/dev/null; then
			echo "# skipped '$line': no script(1) to give it a terminal" >&2
			continue
		fi
		export id
		echo y | script -qec "$line" /dev/null >"$TMP/step.out" 2>&1
		rc=$?
		check "'$line' asked and destroyed ($rc: $(tr -d '\r' <"$TMP/step.out" | head -c 300))" \
			'[ $rc = 0 ] && grep -q "Destroy 1 instance?" "$TMP/step.out"' ;;
	'gpurent dashboard'*)
		eval "timeout 10 $line" >"$TMP/step.out" 2>"$TMP/step.err" </dev/null
		rc=$?
		check "'$line' without a terminal refuses cleanly ($rc)" \
			'[ $rc = 2 ] && grep -q "needs a terminal" "$TMP/step.err"' ;;
	[A-Za-z_]*=*)
		# An assignment such as id=$(gpurent launch ...): evaluated here, so it stays set.
		eval "$line" 2>"$TMP/step.err" </dev/null
		rc=$?
		check "'$line' succeeds (status $rc: $(head -c 300 "$TMP/step.err"))" '[ $rc = 0 ]' ;;
	*)
		eval "timeout 60 $line" >"$TMP/step.out" 2>"$TMP/step.err" </dev/null
		rc=$?
		check "'$line' succeeds (status $rc: $(head -c 300 "$TMP/step.err"))" '[ $rc = 0 ]' ;;
	esac
done

# What the tour did is visible afterwards.
check "the tour launched an instance (${id:-none})" '[[ ${id:-} == sim:i-* ]]'
expect_ok g costs --by label -o json
check "its spend is under its label" 'jq -e "[.rows[] | select(.key == \"train\" and .spent > 0)] | length == 1" <<<"$OUT" >/dev/null'
expect_ok g sim advance 1m
expect_ok g ls -o ids
check "and it is gone" '[ -z "$OUT" ]'
pass
