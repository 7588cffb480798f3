# guard.sh - the instance guard's tests on a vast instance behind a real sshd: source after
# lib.sh (it sources sshd.sh, probes.sh and serve.sh).
#
#   guard_vast_busy            sshd, a busy GPU (the NVIDIA stand-in at 86%: the agent stops
#                              nothing), sim serve's vast as the one provider, a guard sample
#                              every second
#   guard_vast_instance LABEL  launch an instance labelled LABEL and let it run; sets id, n
#                              (its number at vast), dir (the agent's directory on it) and
#                              GPURENT_GUARD_ENVIRON (its container's environment)
. "$(dirname "${BASH_SOURCE[0]}")/sshd.sh"
. "$(dirname "${BASH_SOURCE[0]}")/probes.sh"
. "$(dirname "${BASH_SOURCE[0]}")/serve.sh"

guard_vast_busy() {
	start_sshd
	nvidia_double old-driver-440.txt
	start_serve vast --api-key test-key-vast
	use_provider vast test-key-vast
	g config set providers vast >/dev/null
	g config set guard.interval 1s >/dev/null
}

guard_vast_instance() {
	launch_fresh gpus=1 -- --label "$1" >"$TMP/id" || fail "launch"
	id=$(cat "$TMP/id")
	n=${id#vast:}
	expect_ok serve_g vast sim advance 10m
	export GPURENT_GUARD_ENVIRON="$SERVE_HOME/instance-env/$n"
	dir="$HOME/.gpurent-guard/vast-$n"
	CLEANUP_HOOKS+=("kill \$(cat '$dir/pid' 2>/dev/null) 2>/dev/null")
}
