#!/bin/sh
# t520-shell.sh - `gpurent shell` driven through tmux: completion of a command and of an
# instance id, a failing command, Ctrl-C during `metrics --follow`, login at the prompt
# (no echo, no history), history kept across two runs, exit and Ctrl-D; and the same shell
# in Chinese (LANG=zh_CN.UTF-8).
#
# usage: t520-shell.sh [PATH-TO-GPURENT]   (or GPURENT=...; default build/gpurent)
# Needs tmux; skips (exit 77) without it. Every wait is bounded.
set -u

G=${1:-${GPURENT:-build/gpurent}}
case $G in /*) ;; *) G=$(pwd)/$G ;; esac
[ -x "$G" ] || { echo "t520: no gpurent binary at $G" >&2; exit 1; }
# The message catalogues built beside the binary (meson sets GPURENT_LOCALEDIR).
LOCALEDIR=${GPURENT_LOCALEDIR:-$(dirname "$G")/po}
T=$(mktemp -d /tmp/gpurent-t520-XXXXXX)
# The server, its trap, screen and wait_for (tests/tmux.sh).
PANE=t520
. "$(dirname "$0")/../tmux.sh"
unset GPURENT_PASSPHRASE GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME
for v in $(env | sed -n 's/^\([A-Za-z0-9_]*_API_KEY\)=.*/\1/p'); do unset "$v"; done
export GPURENT_HOME="$T/home" GPURENT_SIM_SPEED=60 NO_COLOR=1
mkdir -m 700 "$GPURENT_HOME"

fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok - $*"; }
# the last non-empty line of the screen
last_line() { screen | grep -v '^ *$' | tail -n 1; }
wait_prompt() {
	n=0
	while [ $n -lt "${1:-50}" ]; do
		last_line | grep -E -q '^gpurent(\[[a-z0-9_-]+\])?> ?$' && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
start_shell() {
	# capture-pane drops trailing blanks, so a prompt reads "gpurent>"
	tm new-session -d -s t520 -x 160 -y 45 \
	    "env GPURENT_HOME='$GPURENT_HOME' GPURENT_SIM_SPEED=60 NO_COLOR=1 TERM=xterm \
	    '$G' shell; echo SHELL-EXIT-\$?; sleep 30"
	wait_prompt 100 || fail "no prompt: $(screen)"
}
gone() {	# the shell has left: its exit line shows
	wait_for "SHELL-EXIT-$1" 50
}
clear_line() { tm send-keys -t t520 C-a C-k; }

# An instance to complete and to follow.
offer=$("$G" -o ids offers --limit 1 2> /dev/null)
[ -n "$offer" ] || { echo "t520: no offer" >&2; exit 1; }
inst=$("$G" -o ids launch --wait --timeout 120 "$offer" 2> /dev/null)
case $inst in sim:i-*) ok "launched $inst" ;; *) echo "t520: launch failed" >&2; exit 1 ;; esac

start_shell

# --- completion of a command
tm send-keys -t t520 "offe" Tab
wait_for '^gpurent> offers ?$' 20 && ok "Tab completes a command" || fail "command: $(last_line)"
clear_line

# --- completion of an instance id (from the local database)
tm send-keys -t t520 "show sim:i-" Tab
wait_for "^gpurent> show $inst ?\$" 20 && ok "Tab completes an instance id" ||
    fail "instance id: $(last_line)"
tm send-keys -t t520 Enter
wait_for "running|provisioning" 50 && ok "show runs" || fail "show: $(screen)"
wait_prompt || fail "no prompt after show"

# --- completion of an option and its value
tm send-keys -t t520 "offers --outp" Tab "j" Tab
wait_for '^gpurent> offers --output json ?$' 20 && ok "Tab completes an option and value" ||
    fail "option: $(last_line)"
clear_line

# --- a failing command prints its error and the shell goes on
tm send-keys -t t520 "show sim:i-999999" Enter
wait_for "gpurent: .*i-999999" 50 && ok "an error is printed" || fail "no error: $(screen)"
wait_prompt || fail "no prompt after an error"
tm send-keys -t t520 "bogus-command" Enter
wait_for "'bogus-command' is not a gpurent command" 30 && ok "unknown command" ||
    fail "unknown command: $(screen)"
wait_prompt || fail "no prompt after an unknown command"
tm send-keys -t t520 "echo 'unterminated" Enter
wait_for "unterminated single quote" 30 && ok "a quoting error" || fail "quote: $(screen)"
wait_prompt || fail "no prompt after a quoting error"

# --- Ctrl-C at the prompt clears the line
tm send-keys -t t520 "half a line" C-c
wait_prompt 30 && ok "Ctrl-C at the prompt" || fail "Ctrl-C at the prompt: $(last_line)"

# --- Ctrl-C during metrics --follow stops it, not the shell
tm send-keys -t t520 C-l
tm send-keys -t t520 "metrics $inst --follow" Enter
wait_for "$inst +[0-9]" 100 && ok "metrics --follow prints samples" || fail "metrics: $(screen)"
sleep 0.5
tm send-keys -t t520 C-c
wait_prompt 50 && ok "Ctrl-C stops metrics --follow" || fail "after Ctrl-C: $(screen)"
tm has-session -t t520 2> /dev/null && ! screen | grep -q SHELL-EXIT &&
    ok "the shell is still there" || fail "the shell left on Ctrl-C"
tm send-keys -t t520 C-l "ls" Enter
wait_for "^$inst " 50 && ok "the next command runs" || fail "ls after Ctrl-C: $(screen)"
wait_prompt || fail "no prompt after ls"

# --- login at the prompt: the key is not echoed and not kept in history
KEY="shell-key-$$-Qx9"
tm send-keys -t t520 "login sim" Enter
wait_for "API key for sim" 50 && ok "login asks for the key" || fail "login: $(screen)"
tm send-keys -t t520 "$KEY" Enter
if wait_for "New passphrase" 30; then
	tm send-keys -t t520 Enter	# empty: seal with a key file
fi
wait_for "stored the key for 'sim'" 100 && ok "login stores the key" || fail "store: $(screen)"
screen | grep -F -q -- "$KEY" && fail "the key was echoed" || ok "the key is not echoed"
wait_prompt || fail "no prompt after login"
tm send-keys -t t520 " ls --no-header" Enter	# a leading blank keeps it out of history
wait_prompt || fail "no prompt after ' ls'"
tm send-keys -t t520 "gpus --limit 1 --env HF_TOKEN=abc" Enter
wait_prompt || fail "no prompt after a line naming a token"

# --- exit leaves
tm send-keys -t t520 "exit 3" Enter
gone 3 && ok "exit leaves with its status" || fail "exit: $(screen)"
tm kill-session -t t520 2> /dev/null

H="$GPURENT_HOME/history"
[ -f "$H" ] && ok "history file written" || fail "no history file"
[ "$(stat -c %a "$H" 2> /dev/null)" = 600 ] && ok "history mode 0600" || fail "history mode"
grep -q "^ls$" "$H" && ok "history has ls" || fail "history: $(cat "$H")"
grep -q "metrics $inst --follow" "$H" && ok "history has the interrupted command" ||
    fail "history lacks metrics: $(cat "$H")"
grep -q "login" "$H" && fail "login is in the history" || ok "login is not in the history"
grep -F -q -- "$KEY" "$H" && fail "the key is in the history" || ok "the key is not in history"
grep -q "HF_TOKEN" "$H" && fail "a token line is in the history" || ok "nor a line with a token"
grep -q "no-header" "$H" && fail "a line with a leading blank was kept" ||
    ok "nor a line starting with a blank"
grep -q "bogus-command" "$H" && fail "an unknown command was kept" ||
    ok "nor an unknown command"
grep -a -F -q -- "$KEY" "$GPURENT_HOME"/state.db* && fail "the key is in the database" ||
    ok "the key is not in the database"

# --- a second run sees the first run's history; Ctrl-D leaves
start_shell
tm send-keys -t t520 Up
wait_for '^gpurent> ls$' 20 && ok "history across runs" || fail "Up: $(last_line)"
clear_line
tm send-keys -t t520 C-d
gone 0 && ok "Ctrl-D leaves" || fail "Ctrl-D: $(screen)"

# --- in Chinese (LANG=zh_CN.UTF-8): the shell, its errors and a command's prompt speak
# Chinese; command words, completion and ids stay as they are.
if locale -a 2> /dev/null | grep -qix 'zh_CN\.utf-\?8' &&
    [ -f "$LOCALEDIR/zh_CN/LC_MESSAGES/gpurent.mo" ]; then
	# Started beside the last run's session, then named as the helpers look for it: killing
	# the server's only session first would race its exit against the new session.
	tm new-session -d -s t520zh -x 160 -y 45 \
	    "env -u LC_ALL -u LANGUAGE LANG=zh_CN.UTF-8 GPURENT_LOCALEDIR='$LOCALEDIR' \
	    GPURENT_HOME='$GPURENT_HOME' NO_COLOR=1 TERM=xterm '$G' shell; echo SHELL-EXIT-\$?; \
	    sleep 30"
	tm kill-session -t t520 2> /dev/null
	tm rename-session -t t520zh t520
	wait_prompt 100 || fail "no prompt in Chinese: $(screen)"
	wait_for "gpurent shell：'help' 列出命令，Tab 补全" 20 && ok "the greeting in Chinese" ||
	    fail "greeting: $(screen)"
	tm send-keys -t t520 "offe" Tab
	wait_for '^gpurent> offers ?$' 20 && ok "Tab completes in Chinese" ||
	    fail "zh command: $(last_line)"
	clear_line
	tm send-keys -t t520 "bogus-command" Enter
	wait_for "gpurent：'bogus-command' 不是 gpurent 命令" 30 &&
	    ok "an unknown command in Chinese" || fail "zh unknown command: $(screen)"
	wait_prompt || fail "no prompt after a Chinese error"
	tm send-keys -t t520 "login sim" Enter
	wait_for "sim 的 API 密钥（输入不显示）" 50 && ok "login asks in Chinese" ||
	    fail "zh login: $(screen)"
	tm send-keys -t t520 "$KEY" Enter
	wait_for "已在配置档 '[a-z]*' 中保存 'sim' 的密钥" 100 && ok "login says it in Chinese" ||
	    fail "zh store: $(screen)"
	wait_prompt || fail "no prompt after a Chinese login"
	tm send-keys -t t520 C-d
	gone 0 && ok "Ctrl-D leaves in Chinese" || fail "zh Ctrl-D: $(screen)"
	tm kill-session -t t520 2> /dev/null
else
	fail "no zh_CN.UTF-8 locale or no catalogue under $LOCALEDIR (scripts/install-deps, ninja)"
fi

if [ $fails -ne 0 ]; then
	echo "t520: $fails failure(s)" >&2
	exit 1
fi
echo "t520: all passed"
