#!/usr/bin/env bash
# A state database written by an earlier release opens and is upgraded in place (issue 25:
# numbered migrations): tests/data/state/ holds one from each of three builds (made by
# make-fixture.sh there). Each is loaded into a fresh home; ls, costs, events, group ls and
# metrics --since must print what the build that wrote it printed for it, and the schema
# version is then the current one. The d1ad926 one has a groups table from before the
# gpus, env and predict columns, which gpurent could not read before the migrations.
. "$(dirname "$0")/lib.sh"
export GPURENT_SIM_TIME=1796119200
data=$SRCDIR/tests/data/state

# The schema version a fresh database gets: the current one.
expect_ok g ls
current=$(sqlite3 "$GPURENT_HOME/state.db" "PRAGMA user_version")
check "a fresh database is numbered: $current" '[ "$current" -gt 0 ]'

for c in 7b1f338 d1ad926 69b2a51; do
	export GPURENT_HOME=$TMP/home-$c
	mkdir -p "$GPURENT_HOME"
	sqlite3 "$GPURENT_HOME/state.db" <"$data/state-$c.sql" || fail "load $c"
	check "$c: unnumbered" '[ "$(sqlite3 "$GPURENT_HOME/state.db" "PRAGMA user_version")" = 0 ]'
	expect_ok g -o json ls
	check "$c: ls: $OUT" '[ "$(jq -c "[.[] | [.id, .label, .state]]" <<<"$OUT")" = \
		"[[\"sim:i-000001\",\"fix-a\",\"running\"],[\"sim:i-000002\",\"fix-b\",\"destroying\"]]" ]'
	check "$c: upgraded" \
		'[ "$(sqlite3 "$GPURENT_HOME/state.db" "PRAGMA user_version")" = "$current" ]'
	expect_ok g -o json costs
	check "$c: costs: $OUT" '[ "$(jq -c "[.spent, .burn_hour]" <<<"$OUT")" = "[7.580917,1.89]" ]'
	expect_ok g events
	check "$c: events: $OUT" '[ "$(tail -n +2 <<<"$OUT" | awk "{print \$3, \$4, \$6}")" = \
		"warn runtime sim:i-000001" ]'
	case $c in
	7b1f338)	# before groups and the stored history
		groups='[]' rows=0 ;;
	*)	groups='[["web",1,2]]' rows=2 ;;
	esac
	expect_ok g -o json group ls
	check "$c: groups: $OUT" '[ "$(jq -c "[.[] | [.name, .gpus, .max]]" <<<"$OUT")" = "$groups" ]'
	expect_ok g -o json metrics sim:i-000001 --since 1d
	check "$c: the stored history: $OUT" '[ "$(jq length <<<"$OUT")" = "$rows" ]'
done

# A database of a newer gpurent (a schema version above this one's) is refused, untouched.
export GPURENT_HOME=$TMP/home-newer
mkdir -p "$GPURENT_HOME"
sqlite3 "$GPURENT_HOME/state.db" <"$data/state-69b2a51.sql" || fail "load"
sqlite3 "$GPURENT_HOME/state.db" "PRAGMA user_version = $((current + 1))" || fail "renumber"
before=$(sha256sum <"$GPURENT_HOME/state.db")
expect_rc 1 g ls
check "says why: $ERR" 'grep -q "schema version $((current + 1)), newer than this gpurent.s $current" <<<"$ERR"'
check "left as it was" '[ "$(sha256sum <"$GPURENT_HOME/state.db")" = "$before" ]'
check "no journal of its own" '[ ! -e "$GPURENT_HOME/state.db-wal" ]'
pass
