#!/bin/bash
# A labelled create whose outcome is unclear (answered 500 after the provider acted) is
# looked up by its label, and the label is not unique to it: an earlier live instance with
# the same label must never be taken for the new one (that reported the old instance, exit
# 0, and left the new one billing unreported), on ppio, runpod, lambda or vast. Only an
# instance that was not there before the create was sent counts; when what was there could
# not be listed, the outcome is unknown and nothing is adopted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

export GPURENT_SIM_TIME=1780000000
# (start_serve gives the servers of a provider one world of their own, apart from the
# client's home and from the other providers'.)

# live_labelled PROVIDER LABEL: the ids of the live instances labelled LABEL at the provider,
# asked of the fault-free server ($CLEAN_URL), one a line.
live_labelled() {
	local up out
	up=$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')
	out=$(env "GPURENT_${up}_URL=$CLEAN_URL" "$GPURENT" --provider "$1" -o json ls) ||
		fail "listing $1 on the fault-free server failed"
	jq -r --arg l "$2" '.[] | select(.label == $l and .state != "destroying" and
		.state != "destroyed") | .id' <<<"$out" | sort
}

# journal_of ID: the launch journal row settled with ID ("" when none).
journal_of() {
	sqlite3 "$DB" \
		"SELECT id FROM launch_journal WHERE settled = 1 AND instance_id = '$1'"
}

# launchable PROVIDER: two offers with a machine free, one a line. The simulator's world
# decides what a create gets; a PPIO offer is named by the region the ppio dialect names the
# simulator's by (as t101 does), a Lambda one must be type@region.
launchable() {
	local sim region
	if [ "$1" != ppio ]; then
		g --provider "$1" -o json offers gpus=1 type=on-demand | jq -r '[.[] |
			select(.available > 0 and (.provider != "lambda" or (.id | contains("@"))))][:2][].id'
		return
	fi
	g --provider sim -o json offers gpus=1 type=on-demand 2>/dev/null |
	    jq -c '[.[] | select(.available > 0)][:2][]' | while read -r sim; do
		case $(jq -r .region <<<"$sim") in
		na-east) region=cn-east-1 ;; na-central) region=cn-central-1 ;;
		na-west) region=cn-south-1 ;; eu-west) region=cn-north-1 ;;
		eu-central) region=cn-north-2 ;; eu-north) region=cn-northwest-1 ;;
		as-east) region=cn-east-2 ;; as-south) region=cn-south-2 ;;
		oc-east) region=cn-southwest-1 ;; *) region=cn-southwest-2 ;;
		esac
		echo "ppio:prod-$(jq -r '.gpu | ascii_downcase' <<<"$sim")@$region:1"
	done
}

# same_label PROVIDER FAIL_MATCH: A launched with --label cn through a fault-free server,
# then B with --label cn through one that answers its create 500 after acting.
same_label() {
	local p=$1 offers a b rows
	start_serve "$p" --api-key k
	CLEAN_URL=$SERVE_URL
	use_provider "$p" k
	mapfile -t offers < <(launchable "$p")
	check "$p: two offers to launch" '[ ${#offers[@]} = 2 ]'
	expect_ok g launch "${offers[0]}" --image img --label cn
	a=$OUT
	start_serve "$p" --api-key k --fail-first-acted 1 --fail-match "$2"
	use_provider "$p" k
	run g launch "${offers[1]}" --image img --label cn
	b=$OUT
	check "$p: B succeeded after the 500 (status $RC): $ERR" '[ "$RC" = 0 ]'
	check "$p: B is reported as a new instance, not A ($a): '$b'" \
		'[ -n "$b" ] && [ "$b" != "$a" ]'
	check "$p: exactly A and B live with label cn" \
		'[ "$(live_labelled "$p" cn | tr "\n" " ")" = "$(printf "%s\n" "$a" "$b" | sort | tr "\n" " ")" ]'
	rows=$(journal_of "$b")
	check "$p: the launch journal settled B's launch with B" '[ -n "$rows" ]'
	check "$p: and A's launch with A, once" '[ "$(journal_of "$a" | wc -l)" = 1 ]'
}

same_label ppio product_id
same_label runpod '"startSsh":true'
same_label lambda instance-operations/launch
same_label vast /asks/

# What already wore the label cannot be listed before the create (the list's five attempts
# all answer 500: the same path as the create's), and the create is answered 500 after
# acting: the outcome is unknown, nothing is adopted, and the new instance is there to be
# found with `gpurent ls`.
start_serve ppio --api-key k
CLEAN_URL=$SERVE_URL
use_provider ppio k
mapfile -t offers < <(launchable ppio)
expect_ok g launch "${offers[0]}" --image img --label zq7
c=$OUT
start_serve ppio --api-key k --fail-first 5 --fail-first-acted 1 --fail-match /gpus/v2/instances \
    --log-requests "$TMP/requests.jsonl"
use_provider ppio k
run g launch "${offers[1]}" --image img --label zq7
check "not listed before: outcome unknown (status $RC)" \
	'[ "$RC" = 5 ] && [[ $ERR == *"outcome unknown"*"could not be listed before it was sent"* ]]'
check "the old instance is not reported ($c): '$OUT'" '[[ $OUT != *"$c"* ]]'
check "five failed looks before the create, none after" \
	'[ "$(jq -s -r "[.[] | select(.path == \"/gpus/v2/instances\") | .method] | join(\",\")" \
	    "$TMP/requests.jsonl")" = "GET,GET,GET,GET,GET,POST" ]'
check "and the create acted: two live instances labelled zq7" \
	'[ "$(live_labelled ppio zq7 | wc -l)" = 2 ]'
check "no journal row settled with the old one a second time" '[ "$(journal_of "$c" | wc -l)" = 1 ]'
pass
