# slurm.sh - a real Slurm cluster for the slurm backend's tests: source after lib.sh.
#
#   start_slurm         start tests/slurm/cluster in $TMP/slurm (two nodes n1, n2 with four
#                       stand-in h100 GPUs each; partitions gpu (n1, n2, 4 h) and short (n2,
#                       30 min)), stopped by the cleanup; exports SLURM_CONF and
#                       GPURENT_SLURM_URL, a one-hour token in SLURM_JWT, and makes slurm
#                       the only provider
#   start_slurm_jobs    start_slurm, with batch jobs working and writing in OUTDIR
#                       ($TMP/slurm/jobs: slurm.workdir and slurm.output_dir)
#   slurm_nodes_on_sshd start_sshd (source sshd.sh too), and reach the nodes n1, n2 there as
#                       gpu-n1, gpu-n2 (slurm.ssh_host with %n, an ssh config for the names,
#                       slurm.ssh_port)
#   sl CMD ARGS...      a Slurm client command (squeue, sinfo, scontrol ...) as root through
#                       munge: without SLURM_JWT, which the clients would otherwise use
#   wait_job_cancelled ID  wait (at most 30 s) until scontrol says job ID is CANCELLED (Slurm
#                       passes through COMPLETING while the job's processes end); its last
#                       state in JOB_STATE
#   wait_job_state ID STATE N   poll squeue until job ID is in STATE, at most N half-seconds
#
# The cluster needs root (slurmd starts jobs as their users): run as anyone else, the test
# fails saying so rather than skipping.
start_slurm() {
	local cluster="$SRCDIR/tests/slurm/cluster"

	if [ "$(id -u)" != 0 ]; then
		echo "not ok $TEST_NAME: the Slurm cluster needs root (slurmd starts jobs as their users)" >&2
		exit 1
	fi
	CLEANUP_HOOKS+=("'$cluster' stop '$TMP/slurm'")
	"$cluster" start "$TMP/slurm" || fail "the Slurm cluster did not start"
	# shellcheck source=/dev/null
	. "$TMP/slurm/env"
	SLURM_JWT=$(sl scontrol token username=root lifespan=3600) || fail "no token"
	export SLURM_JWT
	g config set providers slurm >/dev/null || fail "config set providers"
}

start_slurm_jobs() {
	start_slurm
	OUTDIR=$TMP/slurm/jobs
	expect_ok g config set slurm.workdir "$OUTDIR"
	expect_ok g config set slurm.output_dir "$OUTDIR"
}

slurm_nodes_on_sshd() {
	start_sshd
	printf 'Host gpu-n1 gpu-n2\n\tHostName 127.0.0.1\n' >"$TMP/ssh/nodes.conf"
	expect_ok g config set ssh.config "$TMP/ssh/nodes.conf"
	expect_ok g config set slurm.ssh_host 'gpu-%n'
	expect_ok g config set slurm.ssh_port "$SSHD_PORT"
}

sl() {
	env -u SLURM_JWT "$@"
}

wait_job_state() {
	local id=$1 want=$2 n=$3 i
	for ((i = 0; i < n; i++)); do
		[ "$(sl squeue -h -j "$id" -o %T 2>/dev/null)" = "$want" ] && return 0
		sleep 0.5
	done
	return 1
}

wait_job_cancelled() {
	local i
	for ((i = 0; i < 60; i++)); do
		JOB_STATE=$(sl scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		[ "$JOB_STATE" = CANCELLED ] && return 0
		sleep 0.5
	done
	return 1
}
