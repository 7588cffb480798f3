# launch-fresh.sh - sourced by tests/cli/lib.sh and tests/ui/lib.sh; runs $GPURENT.
#
# launch_fresh FILTER... -- LAUNCH-OPTIONS...: launch the first offer FILTER finds, printing
# the id. On a market that moves with the wall clock (GPURENT_SIM_SPEED), a loaded machine can
# let the offer go between the search and the launch: launch then exits 7 and says to search
# again, which this does, at most 5 times.
launch_fresh() {
	local filter=() i rc=7
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		filter+=("$1")
		shift
	done
	shift
	for ((i = 0; i < 5 && rc == 7; i++)); do
		"$GPURENT" launch "$("$GPURENT" offers "${filter[@]}" -o ids -n 1)" "$@"
		rc=$?
	done
	return "$rc"
}
