#!/bin/bash
# t982: a dashboard started while its team's state could not be opened (here: the database
# not yet made) shows why, and opens it at the next refresh once it is there (issue 31, left
# over from lending the state to the simulator). Before, the instances lane's simulator held
# the failed state for the dashboard's whole life: its instances never came.
. "$(dirname "$0")/lib.sh"
use_pg

start_pg
later=${GPURENT_TEST_PG_URL%/gpurent}/later
"$G" config set state.url "$later" >/dev/null || { fail "state.url"; finish; }
start_dash 160 40
keys 2
wait_for 'database "later" does not exist' 100 && ok "the instances view says why" ||
	{ fail "no error shown: $(screen)"; finish; }

psql "$GPURENT_TEST_PG_URL" -qAtX -c "CREATE DATABASE later" >/dev/null ||
	{ fail "CREATE DATABASE"; finish; }
id=$(launch_fresh type=on-demand -- -o ids) || { fail "launch: $id"; finish; }
keys r
wait_for "^  $id " 100 && ok "a refresh lists the instance launched since" ||
	fail "instance $id not listed after a refresh: $(screen)"
screen | grep -q 'does not exist' && fail "the error is still shown: $(screen)" ||
	ok "and the error is gone"
keys q
finish
