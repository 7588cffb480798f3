#!/usr/bin/env bash
# Completion offers ids from each table it reads through the store (issue 25: no SQL of its
# own): a live instance of the simulator's world, an instance the ledger billed in the last
# 30 days, a recorded job and a group, each with the id cache emptied so that only that
# table can be the source.
. "$(dirname "$0")/lib.sh"

# launch_fresh: on a market that moves with the wall, an offer searched may be gone by the
# launch (as it was under ASan), and it is searched again.
gone=$(launch_fresh gpu=h100 type=on-demand -- -o ids) || fail "launch"
expect_ok g destroy "$gone" --yes
live=$(launch_fresh gpu=h100 type=on-demand -- -o ids) || fail "launch"
check "two instances: $gone $live" '[[ $gone == sim:i-* && $live == sim:i-* && $gone != $live ]]'
# Only the ledger knows the destroyed one, only the world the live one.
sqlite3 "$DB" "DELETE FROM idcache; DELETE FROM ledger WHERE instance_id = '$live';" ||
	fail "sqlite3 delete"
expect_ok g __complete args show sim:
check "the world's live instance: $OUT" 'grep -qx "$live" <<<"$OUT"'
check "the ledger's recent instance: $OUT" 'grep -qx "$gone" <<<"$OUT"'

expect_ok g jobs
check "no jobs yet: $OUT" '[ -z "$OUT" ] || ! grep -q "$live" <<<"$OUT"'
sqlite3 "$DB" "INSERT INTO jobs(id, instance_id, seq, dir, name, command, started_at, state,
	exit_code, then_action, after, fetch, account) VALUES('$live/7', '$live', 7, '/j/7', 'train',
	'true', 1, 0, -1, '', 0, NULL, '')" || fail "sqlite3 insert"
expect_ok g __complete args logs "$live/"
check "the recorded job: $OUT" 'grep -qx "$live/7" <<<"$OUT"'

expect_ok g group create web --gpu A100 --max 2 --target-util 60
expect_ok g __complete optarg ls --group w
check "the group: $OUT" '[ "$OUT" = web ]'
pass
