#!/usr/bin/env bash
# gpurent ssh-config (issue 26): an include file with a Host entry per running instance that
# plain ssh uses with no gpurent in the loop; kept only once asked for; names made safe and
# never shared; entries follow launch, stop, start and destroy; the Include line goes into
# ~/.ssh/config only with --install-include, once, at the top.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd
hosts_file_in_tmp
# Plain ssh reads this, as ~/.ssh/config would (ssh takes ~ from the passwd entry, not $HOME).
printf 'Include %s\n' "$HOSTS_FILE" >"$TMP/ssh_config"
plain_ssh() { ssh -F "$TMP/ssh_config" -o BatchMode=yes -o ConnectTimeout=10 "$@" </dev/null; }

a=$(launch_fresh type=on-demand -- --wait --timeout 60 --label train-1) || fail "launch a"
check "nothing is written before ssh-config was asked for" '[ ! -e "$HOSTS_FILE" ]'

expect_ok g ssh-config
check "the file is written with the instance's entry, named by its label" \
	'grep -qx "Host train-1" "$HOSTS_FILE" && [[ $OUT == *train-1*"$a"*127.0.0.1*"$SSHD_PORT"* ]]'
check "it says ~/.ssh/config does not include it, and leaves ~/.ssh alone" \
	'[[ $ERR == *"does not include $HOSTS_FILE"* ]] && [ ! -e "$HOME/.ssh/config" ]'
check "the entry pins the instance's own host keys, strictly" \
	'grep -q "UserKnownHostsFile $GPURENT_HOME/hostkeys/$a\$" "$HOSTS_FILE" &&
	 grep -q "StrictHostKeyChecking yes" "$HOSTS_FILE" && [ -s "$GPURENT_HOME/hostkeys/$a" ]'
run plain_ssh train-1 echo plain
check "plain ssh reaches the instance by its name ($RC)" '[ "$RC" = 0 ] && [ "$OUT" = plain ]'

# A label with what ssh_config would read as syntax, and one label on two instances.
b=$(launch_fresh type=on-demand -- --wait --timeout 60 --label ' bad name*?,!') || fail "launch b"
c=$(launch_fresh type=on-demand -- --wait --timeout 60 --label train-1) || fail "launch c"
check "launches update the file" 'grep -q "$b" "$HOSTS_FILE" && grep -q "$c" "$HOSTS_FILE"'
expect_ok g ssh-config -o json
check "a label is made safe for ssh_config" \
	'[ "$(jq -r --arg id "$b" ".[] | select(.id == \$id) | .alias" <<<"$OUT")" = bad-name ]'
ca=${a//:/-} cc=${c//:/-}
check "a name two instances share becomes NAME.ID for each" \
	'[ "$(jq -r --arg id "$a" ".[] | select(.id == \$id) | .alias" <<<"$OUT")" = "train-1.$ca" ] &&
	 [ "$(jq -r --arg id "$c" ".[] | select(.id == \$id) | .alias" <<<"$OUT")" = "train-1.$cc" ] &&
	 ! grep -qx "Host train-1" "$HOSTS_FILE"'
check "the json has the address, port and user" \
	'jq -e --arg id "$c" ".[] | select(.id == \$id) | .host == \"127.0.0.1\" and .port == $SSHD_PORT and .user == \"$(id -un)\"" <<<"$OUT" >/dev/null'
run plain_ssh "train-1.$cc" echo c
check "plain ssh reaches each by its NAME.ID ($RC)" '[ "$RC" = 0 ] && [ "$OUT" = c ]'

# The lifecycle keeps it: no ssh-config run in between.
expect_ok g destroy "$c" --yes
check "destroy removes the entry, and the name is the label again" \
	'! grep -q "$c" "$HOSTS_FILE" && grep -qx "Host train-1" "$HOSTS_FILE"'
expect_ok g stop "$a" --wait --timeout 60
check "stop removes the entry of the stopped instance" '! grep -q "$a" "$HOSTS_FILE"'
expect_ok g start "$a" --wait --timeout 60
check "start brings it back" 'grep -qx "Host train-1" "$HOSTS_FILE" && grep -q "$a" "$HOSTS_FILE"'
run plain_ssh train-1 echo again
check "plain ssh reaches it after the start ($RC)" '[ "$RC" = 0 ] && [ "$OUT" = again ]'

# Another machine at the address: plain ssh refuses it too, with the pinned key.
restart_sshd_new_key
run plain_ssh train-1 true
check "plain ssh refuses a changed host key ($RC)" \
	'[ "$RC" = 255 ] && [[ $ERR == *"IDENTIFICATION HAS CHANGED"* || $ERR == *"verification failed"* ]]'

# --print writes nothing; the Include line once, at the top.
g config set ssh.hosts_file "$TMP/other" >/dev/null || fail "config set"
expect_ok g ssh-config --print
check "--print prints the entries" '[[ $OUT == *"Host bad-name"* && $OUT == *"Host train-1"* ]]'
check "and writes no file" '[ ! -e "$TMP/other" ]'
g config set ssh.hosts_file "$HOSTS_FILE" >/dev/null || fail "config set"
mkdir -p "$HOME/.ssh"
printf 'Host elsewhere\n\tUser someone\n' >"$HOME/.ssh/config"
expect_ok g ssh-config --install-include
check "--install-include puts the Include line at the top" \
	'[ "$(head -1 "$HOME/.ssh/config")" = "Include $HOSTS_FILE" ] && grep -qx "Host elsewhere" "$HOME/.ssh/config"'
expect_ok g ssh-config --install-include
check "and only once" '[ "$(grep -c "^Include" "$HOME/.ssh/config")" = 1 ] && [[ $ERR == *"already includes"* ]]'
expect_ok g ssh-config
check "without it ~/.ssh/config is left as it is" '[ "$(grep -c "^Include" "$HOME/.ssh/config")" = 1 ]'
pass
