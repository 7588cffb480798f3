#!/bin/bash
# t210: the dashboard's cluster view against a real Slurm cluster (tests/slurm/cluster):
# the partitions' GPUs total/used/free match sinfo, a job pending for Resources shows
# Slurm's reason, a running one its nodes, and a hostile job name reaches the screen
# without its control characters; PgDn stays when there is no page past the screen. The
# cluster needs root; as anyone else the test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm

wait_state() {	# JOB STATE: at most 30 s
	local i
	for ((i = 0; i < 60; i++)); do
		[ "$(sl squeue -h -j "$1" -o %T 2>/dev/null)" = "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# Four GPUs of n1 taken; then a two-node job asking four per node must wait for them.
hold=$("$G" launch slurm:gpu/h100 --count 4 --label hold 2>"$T/err") ||
	{ fail "launch: $(cat "$T/err")"; finish; }
hold=${hold#slurm:}
wait_state "$hold" RUNNING || { fail "job $hold never ran"; finish; }
# The name of the waiting one holds an escape sequence and a bell: nothing of them may
# reach the terminal.
wait=$(sl sbatch --parsable -J "$(printf 'big\033[2J\007wait')" -p gpu -N 2 \
	--gres=gpu:h100:4 -o /dev/null --wrap 'sleep 600') || { fail "sbatch"; finish; }
wait_state "$wait" PENDING || { fail "job $wait is not pending"; finish; }
for ((i = 0; i < 60; i++)); do
	[ "$(sl squeue -h -j "$wait" -o %r)" = Resources ] && break
	sleep 0.5
done
[ "$(sl squeue -h -j "$wait" -o %r)" = Resources ] && ok "Slurm says Resources" ||
	fail "reason: $(sl squeue -h -j "$wait" -o %r)"

# What sinfo says of a partition: "TOTAL USED FREE".
sinfo_view() {
	sl sinfo -h -N -p "$1" -O 'NodeList:10,Gres:40,GresUsed:60' |
		awk '{ split($2, g, ":"); split($3, u, ":"); sub(/\(.*/, "", u[3]); t += g[3]; s += u[3] }
			END { print t, s, t - s }'
}
gpu=$(sinfo_view gpu)
short=$(sinfo_view short)
[ "$gpu" = "8 4 4" ] && ok "sinfo: gpu 8 4 4" || fail "sinfo gpu: $gpu"
[ "$short" = "4 0 4" ] && ok "sinfo: short 4 0 4" || fail "sinfo short: $short"

start_dash 160 40 --view cluster
wait_for '^ +slurm: partitions' 100 && ok "the cluster view opens" || fail "view: $(screen)"
row 1 | grep -q '6 Cluster' && ok "its tab" || fail "tabs: $(row 1)"
# One line per partition x type: PARTITION GPU TOTAL USED FREE DOWN NODES PENDING.
line_of() { screen | grep -E "^ +$1 +h100 " | head -1 | awk '{ print $3, $4, $5 }'; }
wait_for '^ +gpu +h100 +8 ' 100 || fail "no gpu line: $(screen)"
[ "$(line_of gpu)" = "$gpu" ] && ok "gpu/h100 total/used/free match sinfo ($gpu)" ||
	fail "gpu line '$(line_of gpu)' vs sinfo '$gpu'"
[ "$(line_of short)" = "$short" ] && ok "short/h100 matches sinfo ($short)" ||
	fail "short line '$(line_of short)' vs sinfo '$short'"
screen | grep -E -q '^ +gpu +h100 +8 +4 +4 +0 +2 +1 ' && ok "2 nodes, 1 job pending for gpu" ||
	fail "nodes/pending: $(screen | grep -E '^ +gpu +h100')"

# The jobs, with Slurm's state and reason, as squeue has them.
wait_for "^ +slurm:$wait +.*PENDING +Resources +gpu +8 x h100" 50 &&
	ok "the pending job with its reason, 8 GPUs" || fail "pending job: $(screen)"
wait_for "^ +slurm:$hold +hold +RUNNING +- +gpu +4 x h100 +$(sl squeue -h -j "$hold" -o %N) " 50 &&
	ok "the running job on its node" || fail "running job: $(screen)"
screen | grep -q 'big\[2Jwait' && ok "the hostile name stripped of ESC and BEL" ||
	fail "hostile name: $(screen | grep "slurm:$wait")"

# Cancelled in Slurm: r brings the view in step.
sl scancel "$wait"
for ((i = 0; i < 40; i++)); do [ -z "$(sl squeue -h -j "$wait" 2>/dev/null)" ] && break; sleep 0.25; done
keys r
wait_gone "slurm:$wait " 100 && ok "r: the cancelled job is gone" || fail "after scancel: $(screen)"
wait_for '^ +gpu +h100 +8 +4 +4 +0 +2 +0 ' 50 && ok "and nothing pending" ||
	fail "pending after scancel: $(screen | grep -E '^ +gpu +h100')"

# PgDn turns a page only while a line lies past it: every line is on screen here, so it
# stays (it used to leave the last line alone on screen); j then scrolls one line.
keys NPage j
wait_gone '^ +slurm: partitions' 50 && screen | grep -E -q '^ +gpu +h100 ' &&
	ok "PgDn with every line on screen stays; j scrolls a line" || fail "PgDn, j: $(screen)"

keys q
wait_for 'DASH-EXIT-0' 50 && ok "q quits" || fail "exit: $(screen)"
wait_for 'TTY-OK' 10 && ok "terminal restored" || fail "tty: $(screen)"
finish
