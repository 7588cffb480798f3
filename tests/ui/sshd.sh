# sshd.sh - a real sshd for a dashboard test: tests/cli/sshd.sh (which speaks the CLI tests'
# names), with its cleanup hooks run before the tmux server goes. Source it after lib.sh.
TMP=$T GPURENT=$G
CLEANUP_HOOKS=()
. "$(dirname "${BASH_SOURCE[0]}")/../cli/sshd.sh"
trap 'for h in "${CLEANUP_HOOKS[@]+"${CLEANUP_HOOKS[@]}"}"; do eval "$h" || true; done
	tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
