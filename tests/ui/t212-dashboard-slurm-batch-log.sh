#!/bin/bash
# t212: the dashboard's detail pane of a Slurm batch job (run --provider, job seq 0) shows
# its output the way `logs` reads it (slurm.output_dir here), and its state from Slurm,
# never ~/.gpurent/jobs/0 over ssh; hostile output shows inert. Real cluster, as root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm
# The cluster's jobs directory is where the nodes write and this machine reads.
"$G" config set slurm.output_dir "$T/slurm/jobs" >/dev/null || { fail "output_dir"; finish; }

job=$("$G" run --provider slurm --gpu h100 --detach --name trainer -- \
	sh -c 'for i in 1 2 3 4 5 6 7; do echo "step $i"; done
		printf "evil\033[2J\033[31mRED\033]0;TITLE\007end\n"; sleep 300' 2>"$T/err") ||
	{ fail "run: $(cat "$T/err")"; finish; }
jid=${job#slurm:}
jid=${jid%/0}
for ((i = 0; i < 60; i++)); do
	grep -q end "$T/slurm/jobs/gpurent-$jid.out" 2>/dev/null && break
	sleep 0.5
done
grep -q end "$T/slurm/jobs/gpurent-$jid.out" || { fail "no output from job $jid"; finish; }

start_dash 160 60
keys 2
wait_for "^  slurm:$jid .*running" 100 || { fail "instances: $(screen)"; finish; }
keys Enter
wait_for "Last lines of slurm:$jid/0" 100 && ok "the pane shows the batch job's output" ||
	fail "no output: $(screen)"
wait_for "slurm:$jid/0 +running .*trainer" 20 && ok "the job, running" || fail "job: $(screen)"
screen | grep -q '| step 7' && screen | grep -q '| step 4' && ! screen | grep -q 'step 3' &&
	ok "its last five lines, from slurm.output_dir" || fail "lines: $(screen)"
screen | grep -qF '| evil[2J[31mRED]0;TITLEend' && ok "the hostile line shows inert" ||
	fail "hostile line: $(screen)"
! screen | grep -q 'jobs/0' && ok "no ssh job directory asked" || fail "ssh path: $(screen)"

# Cancelled in Slurm: the open pane follows the scheduler (killed), the output still shown
# (the instance itself leaves the list, so the pane is not closed and reopened).
sl scancel "$jid"
for ((i = 0; i < 40; i++)); do [ -z "$(sl squeue -h -j "$jid" 2>/dev/null)" ] && break; sleep 0.25; done
# The dashboard closes the pane, and says so, once the ended job leaves the instance list,
# which may come first: either is right, a pane still saying "running" is not.
wait_for "slurm:$jid/0 +killed|slurm:$jid is no longer listed by its provider" 300 &&
	ok "killed as Slurm says, or gone from the list" ||
	fail "after scancel: $(screen)"
screen | grep -q "Last lines of" && keys q
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
