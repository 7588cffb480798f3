#!/usr/bin/env bash
# Jobs in a team (issue 31): who ran each job and each managed job is recorded, `jobs` lists
# everyone's with a USER column (JSON key user), and `jobs --mine` keeps one's own. ann and
# bob are two profiles (team.user) of one team's state in PostgreSQL; the "instances" are
# this machine over a real sshd (sshd.sh). bob runs a managed job (its attempt rents a
# machine of its own and ends with it), then ann rents one and each runs a job on it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/pg.sh"
export GPURENT_SIM_SPEED=100
start_pg
start_sshd
CLEANUP_HOOKS+=("close_masters")
expect_ok g config set state.url "$GPURENT_TEST_PG_URL"
expect_ok g config set team.name ml
for who in ann bob; do
	expect_ok g config set --in $who team.user $who
done
as() {
	local who=$1
	shift
	"$GPURENT" --profile "$who" "$@"
}
# [id, user, kind] of each job $1 lists with the rest of the arguments, in order.
jobs_of() {
	local who=$1
	shift
	as "$who" -o json jobs "$@" | jq -c '[.[] | [.id, .user, .kind]]'
}

expect_ok as bob run --managed --gpu h100 --checkpoint-dir ckpt -- 'echo managed-by-bob'
check "bob's managed job m1 ran: $OUT" '[ "$(head -1 <<<"$OUT")" = m1 ]'
attempt=$(as bob -o json jobs show m1 | jq -r '.[0].job')
check "its attempt is a run: $attempt" '[[ $attempt == sim:i-*/* ]]'

id=$(as ann launch "$(as ann -o ids offers type=on-demand -n 1)" --wait --timeout 60) ||
	fail "ann's launch: $id"
expect_ok as ann run "$id" -- 'echo from-ann'
check "ann's job ran" '[ "$OUT" = from-ann ]'
ja=$(sed -n 's/^gpurent: job \([^ ]*\) started.*/\1/p' <<<"$ERR")
expect_ok as bob run "$id" -- 'echo from-bob'
check "bob's job ran, on ann's instance" '[ "$OUT" = from-bob ]'
jb=$(sed -n 's/^gpurent: job \([^ ]*\) started.*/\1/p' <<<"$ERR")
check "two jobs on $id: $ja $jb" '[[ $ja == "$id"/* && $jb == "$id"/* && $ja != "$jb" ]]'

want='[["'$attempt'","bob","attempt"],["'$ja'","ann","run"],["'$jb'","bob","run"],["m1","bob","managed"]]'
check "ann's jobs: everyone's, each with who ran it: $(jobs_of ann)" \
	'[ "$(jobs_of ann | jq -c sort)" = "$(jq -c sort <<<"$want")" ]'
check "bob's jobs: the same" '[ "$(jobs_of bob | jq -c sort)" = "$(jq -c sort <<<"$want")" ]'
check "ann's jobs --mine: hers alone" '[ "$(jobs_of ann --mine)" = "[[\"$ja\",\"ann\",\"run\"]]" ]'
check "bob's jobs --mine: his run, his managed job and its attempt" \
	'[ "$(jobs_of bob --mine | jq -c sort)" = "$(jq -c "sort | map(select(.[1] == \"bob\"))" <<<"$want")" ]'
expect_ok as bob -o json jobs --managed --mine
check "bob's managed jobs --mine: m1, his: $OUT" '[ "$(jq -c "[.[] | [.id, .user]]" <<<"$OUT")" = "[[\"m1\",\"bob\"]]" ]'
expect_ok as ann -o json jobs --managed --mine
check "ann's managed jobs --mine: none" '[ "$OUT" = "[]" ]'
expect_ok as ann jobs
check "the table has a USER column: $OUT" \
	'head -1 <<<"$OUT" | grep -q "USER" && grep -q "^$ja .* ann *$" <<<"$OUT" && grep -q "^$jb .* bob *$" <<<"$OUT"'
pass
