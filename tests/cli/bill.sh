# bill.sh - for the tests of costs --check (t80x): source after lib.sh.
#
#   bill_row INSTANCE DAY FIELD    in $OUT (costs --check -o json), the row's FIELD: an amount
#                                  in micro-units, "null" when unknown, a string as it is
#   rent_cheapest                  launch the cheapest on-demand offer; sets id
bill_row() {
	jq -r --arg id "$1" --arg d "$2" ".rows[] | select(.instance == \$id and .day == \$d) | .$3 | if type == \"number\" then . * 1000000 | round elif . == null then \"null\" else . end" <<<"$OUT"
}

rent_cheapest() {
	expect_ok g offers type=on-demand -n 1 -o ids
	expect_ok g launch "$OUT" "$@" -o ids
	id=$OUT
}

# In $OUT: no difference, and the rented instance billed and matching.
check_matches() {
	check "all is well: $id matches its bill ($(jq -c .rows <<<"$OUT"))" \
		'jq -e --arg id "$id" ".differences == 0 and any(.rows[]; .instance == \$id and .cause == \"match\" and .billed > 0)" <<<"$OUT" >/dev/null'
}

# check_unseen INSTANCE MICROS: in $OUT, INSTANCE billed MICROS today, which the ledger lacks.
check_unseen() {
	local day who=$1 amount=$2
	day=$(date -u +%F)
	# figure: check-unseen check-difference
	check "$who is named: billed $amount, which the ledger does not have" \
		'[ "$(bill_row "$who" "$day" ledger)" = null ] && [ "$(bill_row "$who" "$day" billed)" = "$amount" ] && [ "$(bill_row "$who" "$day" difference)" = "$amount" ] && [ "$(bill_row "$who" "$day" cause)" = unseen ]'
}

# check_storage MICROS: in $OUT, the rented instance billed MICROS of disk today beyond the
# ledger, within a cent (the provider's seconds and the ledger's are read a moment apart).
check_storage() {
	local day d extra=$1
	day=$(date -u +%F)
	d=$(bill_row "$id" "$day" difference)
	# figure: check-storage
	check "$id is named for its disk: $extra more than the ledger, within a cent ($d)" \
		'[ "$d" -ge $((extra - 10000)) ] && [ "$d" -le $((extra + 10000)) ] && [ "$(bill_row "$id" "$day" cause)" = storage ] && [ "$(bill_row "$id" "$day" billed_storage)" -ge "$extra" ]'
}
