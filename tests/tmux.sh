# tmux.sh - a tmux server of the test's own, for the tests that drive gpurent in a terminal
# (the dashboard through ui/lib.sh, the shell in cli/t520): source it once T (the test's
# temporary directory) and PANE (the name of the session the program runs in) are set.
# Without tmux it skips the test (exit 77). The server reads no user config (-f /dev/null);
# the trap kills it and removes $T however the test ends. Every wait is bounded.
#   tm ARGS...                 tmux on the test's server
#   screen                     the text of the pane
#   keys KEY...                tmux send-keys to the pane
#   wait_for REGEX [TENTHS]    until the screen matches (default 5 s)
#   wait_gone REGEX [TENTHS]   until it no longer does
command -v tmux >/dev/null || { echo "skip: no tmux"; exit 77; }
SOCK="gpurent-test-$$"
tm() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
screen() { tm capture-pane -p -t "$PANE" 2>/dev/null; }
keys() { tm send-keys -t "$PANE" "$@"; }
wait_for() {
	_n=0
	while [ $_n -lt "${2:-50}" ]; do
		screen | grep -E -q -- "$1" && return 0
		sleep 0.1
		_n=$((_n + 1))
	done
	return 1
}
wait_gone() {
	_n=0
	while [ $_n -lt "${2:-50}" ]; do
		screen | grep -E -q -- "$1" || return 0
		sleep 0.1
		_n=$((_n + 1))
	done
	return 1
}
