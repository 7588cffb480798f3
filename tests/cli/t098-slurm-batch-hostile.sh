#!/usr/bin/env bash
# Command words that look like shell reach the batch job as the very words typed: the
# script quotes each one, and nothing in them runs. A hostile --name is only a job name,
# and what Slurm reports back reaches no terminal with control characters.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm_jobs
cd "$OUTDIR" || fail "cd"

WORDS=('$(touch PWNED1)' '`touch PWNED2`' '; touch PWNED3' "it's" '"$HOME"' '*'
	$'two\nlines; touch PWNED4' '\' '' '--' '$MASTER_ADDR' "'; touch PWNED5; '")
expect_ok g run --provider slurm --gpu h100 -- printf '[%s]\n' "${WORDS[@]}"
WANT=$(printf '[%s]\n' "${WORDS[@]}")
check "the job printed each word verbatim" '[ "$OUT" = "$WANT" ]'
check "nothing in them ran" '[ -z "$(ls "$OUTDIR" | grep PWNED)" ] && [ ! -e /PWNED1 ]'
expect_ok g run --provider slurm --gpu h100 --nodes 2 -- printf '[%s]\n' "${WORDS[@]}"
check "through srun on two nodes, twice verbatim" '[ "$OUT" = "$WANT"$'"'"'\n'"'"'"$WANT" ]'
check "nothing in them ran there either" '[ -z "$(ls "$OUTDIR" | grep PWNED)" ]'

# A hostile name: Slurm keeps it as the name; jobs shows it without control characters.
expect_ok g run --provider slurm --gpu h100 --detach --name $'x\e]0;owned\a\e[2J$(touch PWNED6)' -- true
J=$OUT
JID=${J#slurm:}
JID=${JID%/0}
check "Slurm has the name" 'sl scontrol show job "$JID" | grep -qF "touch PWNED6"'
expect_ok g jobs
check "no escape or bell reaches jobs" '! grep -q $'"'"'[\x07\x1b]'"'"' <<<"$OUT"'
check "and the name ran nothing" '[ -z "$(ls "$OUTDIR" | grep PWNED)" ]'
pass
