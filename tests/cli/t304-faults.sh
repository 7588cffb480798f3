#!/bin/bash
# Fault injection: a long run of operations against servers that fail 20% of requests
# (429 with Retry-After, 5xx before and after acting, dropped connections, truncated and
# malformed bodies). No crash, no double launch, every failure a non-zero exit with a message.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve.sh"

FAULTS=(--fail-429 4 --fail-5xx 4 --fail-drop 4 --fail-truncate 4 --fail-malformed 4
	--retry-after 0)

# live_with_label PROVIDER LABEL: how many instances not being destroyed carry LABEL, asked
# of the fault-free server ($CLEAN_URL) over the same world, so the answer is the provider's.
live_with_label() {
	local up out
	up=$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')
	out=$(env "GPURENT_${up}_URL=$CLEAN_URL" "$GPURENT" --provider "$1" -o json ls) ||
		fail "listing $1 on the fault-free server failed"
	jq --arg l "$2" '[.[] | select(.label == $l and .state != "destroying" and
		.state != "destroyed")] | length' <<<"$out"
}

# run_ops PROVIDER N: N operations against the faulty server (use_provider's). Right after each
# launch the provider is asked, fault-free, what exists under its label: a launch reported
# done is there exactly once; one reported failed is not there at all, unless gpurent said
# the outcome was unknown (then it is at most once, and counted). Every failure is logged
# as "PROVIDER OP STATUS" in $TMP/failures.
run_ops() {
	local p=$1 n=$2 i op rc ids=() offers=() id label live
	for ((i = 0; i < n; i++)); do
		op=$((i % 8))
		case $op in
		0 | 4)	run g --provider "$p" -o json offers gpus=1 ;;
		1)	run g --provider "$p" -o json ls ;;
		2)	if [ ${#offers[@]} -gt 0 ]; then
				label="f$p$i"
				run g launch "${offers[$((i % ${#offers[@]}))]}" --label "$label"
				rc=$RC
				live=$(live_with_label "$p" "$label")
				CHECKS=$((CHECKS + 1))
				echo "$p $label $rc $live" >>"$TMP/launches"
				if [ "$rc" -eq 0 ]; then
					[ "$live" -eq 1 ] || fail "$label reported launched, yet $live live at $p"
					ids+=("$OUT")
				elif [[ $ERR == *"outcome unknown"* ]]; then
					[ "$live" -le 1 ] || fail "$label: outcome unknown, yet $live live at $p"
					echo "$p $label $live" >>"$TMP/unknown"
				else
					[ "$live" -eq 0 ] ||
						fail "$label reported failed (status $rc), yet $live live at $p"
				fi
				RC=$rc
			else
				run g --provider "$p" ls
			fi ;;
		3 | 5)	if [ ${#ids[@]} -gt 0 ]; then run g show "${ids[$((i % ${#ids[@]}))]}";
			else run g --provider "$p" ls; fi ;;
		6)	run g sim advance 3m ;;
		7)	if [ ${#ids[@]} -gt 1 ]; then run g destroy --yes "${ids[0]}"; ids=("${ids[@]:1}");
			else run g --provider "$p" ls; fi ;;
		esac
		CHECKS=$((CHECKS + 1))
		[ "$RC" -lt 128 ] || fail "op $i on $p crashed (status $RC)"
		if [ "$RC" -ne 0 ]; then
			[ -n "$ERR" ] || fail "op $i on $p failed silently (status $RC)"
			echo "$p $op $RC" >>"$TMP/failures"
		elif [ $op -eq 0 ] || [ $op -eq 4 ]; then
			mapfile -t offers < <(jq -r '[.[] | select(.id | contains("@") or (startswith("lambda") | not))][:5][].id' <<<"$OUT" 2>/dev/null)
		fi
	done
}

# serve_pair PROVIDER SEED: a faulty server and a fault-free one over the same world.
serve_pair() {
	start_serve "$1" --api-key k
	CLEAN_URL=$SERVE_URL
	start_serve "$1" --api-key k "${FAULTS[@]}" --fault-seed "$2"
	use_provider "$1" k
}

: >"$TMP/launches"
: >"$TMP/failures"
: >"$TMP/unknown"
serve_pair vast 7
run_ops vast 200
serve_pair runpod 8
run_ops runpod 80
serve_pair lambda 9
run_ops lambda 80

# Totals. A fifth of all requests fail, but reads are retried and launches look before they
# resend, so what reaches the user is far rarer: these bounds sit well above what a correct
# build shows (see the counts printed) and well below what losing the retries gives.
nf=$(wc -l <"$TMP/failures")
nl=$(wc -l <"$TMP/launches")
nu=$(wc -l <"$TMP/unknown")
nread=$(awk '$2 != 2 && $2 != 6 && $2 != 7' "$TMP/failures" | wc -l)
nlaunchf=$(awk '$3 != 0' "$TMP/launches" | wc -l)
echo "# $((200 + 80 + 80)) operations, $nf failed visibly ($nread reads)," \
	"$nl launches, $nlaunchf reported failed, $nu with outcome unknown" >&2
check "some faults surfaced" '[ "$nf" -gt 0 ]'
check "at least 30 launches were tried" '[ "$nl" -ge 30 ]'
check "reads failed at most 1 time in 10 (of 225)" '[ "$nread" -le 22 ]'
check "all operations failed at most 1 time in 6" '[ "$nf" -le 60 ]'
check "launches failed at most 1 time in 3" '[ $((nlaunchf * 3)) -le "$nl" ]'
pass
