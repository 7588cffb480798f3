# offers-grid.sh - what t046 and t047 (the offers grid's worker, issue 17 part 5) share:
# reading the offer rows on screen and what `gpurent offers` prints for the same market.
# Sourced after lib.sh.

# Money column K (1: PRICE/H, 2: PER GPU-H) of the offer rows on screen; the same column
# as `gpurent offers` prints it.
col() { screen | grep '^  sim:o-' | awk -v k="$1" '{ n = 0; for (i = 1; i <= NF; i++)
	if ($i ~ /^\$/ && ++n == k) print $i }'; }
# Field $1 of `gpurent offers` with the rest of the arguments, one value a line.
cli() { "$G" --no-header --fields "$1" offers "${@:2}" | tr -d " "; }
# The id of the row drawn in reverse video.
selected() { tm capture-pane -e -p -t ui | grep -E $'\e\\[(0;)?7m' | sed 's/\x1b\[[0-9;]*m//g' |
	awk '/^  sim:o-/ { print $1 }'; }
# The selection follows its record through a new order: g brings it back to the top.
top() {
	local i
	keys g
	for ((i = 0; i < 50; i++)); do
		[ -n "$(selected)" ] && [ "$(selected)" = "$(row 3 | awk '{ print $1 }')" ] && return 0
		sleep 0.1
	done
	fail "g: the selection is not on the first row"
}
