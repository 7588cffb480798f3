#!/bin/bash
# t027: Enter on an instance opens its detail pane with its recorded jobs (id, state, exit
# status, age, command) and the last lines of each newest job's log, read from a real sshd
# in the background; a log line full of escape sequences shows as inert text.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd

id=$("$G" launch "$("$G" offers type=on-demand -o ids -n 1)" --wait --timeout 60)
[[ $id == sim:i-* ]] || { fail "launch: $id"; finish; }
"$G" run "$id" --name epoch -- 'for i in 1 2 3 4 5 6 7; do echo "epoch $i loss 0.$i"; done; exit 3' \
	>/dev/null 2>&1
[ $? = 3 ] || fail "the first job did not exit 3"
# ESC [2J would clear the screen, ESC ]0; set the title, ESC [31m turn it red.
"$G" run "$id" -- "printf 'evil\\033[2J\\033[31mRED\\033]0;TITLE\\007end\\n'" >/dev/null 2>&1 ||
	fail "the hostile job did not run"
job=$("$G" run "$id" --detach --name trainer -- 'echo started-training; sleep 300')
jpid=$(cat "$HOME/.gpurent/jobs/${job##*/}/pid")
CLEANUP_HOOKS+=("kill -KILL -- -$jpid 2>/dev/null")

start_dash 160 80
keys 2
wait_for "^  $id .*running +1 " 100 || fail "instances: $(screen)"
keys Enter
wait_for "Last lines of $id/1" 100 && ok "the pane shows the logs, read over ssh" ||
	fail "no logs: $(screen)"
wait_for "$id/1 +exited 3 +[0-9a-z ]+ ago +epoch" 10 && ok "the ended job: state, exit status, age, name" ||
	fail "job 1: $(screen)"
screen | grep -q 'for i in 1 2 3 4 5 6 7' && ok "with its command" || fail "command: $(screen)"
wait_for "$job +running .* ago +trainer" 10 && ok "the running job" || fail "running: $(screen)"
screen | grep -q '| epoch 7 loss 0.7' && screen | grep -q '| epoch 3 loss 0.3' &&
	! screen | grep -q 'epoch 2 loss' && ok "the last five lines of its log" ||
	fail "log lines: $(screen)"
screen | grep -q '| started-training' && ok "the running job's log" || fail "log 3: $(screen)"
screen | grep -qF '| evil[2J[31mRED]0;TITLEend' && ok "the hostile line shows inert" ||
	fail "hostile line: $(screen)"
keys q
wait_gone "Last lines of" 20 || fail "the pane did not close"
keys q
wait_for 'DASH-EXIT-0' 50 || fail "quit: $(screen)"
finish
