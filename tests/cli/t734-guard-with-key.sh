#!/bin/bash
# The instance guard where the provider gives the instance no credential of its own, on
# simulated PPIO and Lambda instances behind a real sshd: without --with-key it is refused,
# saying what --with-key would do; with it, the account's key reaches the instance over ssh's
# stdin into a file of mode 0600 in the agent's directory (never in a process list, nor in
# gpurent's output), and the agent stops the idle PPIO instance through PPIO's API with the
# ssh connection closed; on Lambda, which only terminates, install wants --yes off a terminal
# and the agent (started by hand: gpurent reaches Lambda on port 22 only) terminates the idle
# instance through its API.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
. "$(dirname "$0")/serve.sh"

# The account keys: strings found nowhere else, so that a grep for one finds only it.
KEY=t734-SECRET-ppio-4f1c9a
LKEY=t734-SECRET-lambda-8e2d07
start_sshd
nvidia_double h100x8.txt	# every GPU at 3% or less: idle at the default idle.threshold 5
start_serve ppio --api-key "$KEY"
use_provider ppio "$KEY"
g config set providers ppio >/dev/null
g config set guard.interval 1s >/dev/null
g config set idle.after 2s >/dev/null
GDIR="$HOME/.gpurent-guard"

# Stock is advisory on PPIO: the first offers may be sold out in their region.
p=
for off in $(g -o json offers gpus=1 type=on-demand | jq -r '.[0:12][].id'); do
	run g launch "$off" --image pytorch/pytorch --label t734
	[ "$RC" = 0 ] && p=$OUT && break
done
[ -n "$p" ] || fail "no PPIO offer launched"
pn=${p#ppio:}
expect_ok serve_g ppio sim advance 10m
expect_ok g -o json show "$p"
check "it runs" '[ "$(jq -r .state <<<"$OUT")" = running ]'

# Refused without --with-key, saying what it would do; nothing placed.
expect_rc 12 g guard install "$p"
check "the refusal names --with-key" 'grep -q -- "--with-key puts that key on the instance" <<<"$ERR"'
check "and the key file's mode" 'grep -q "mode 0600" <<<"$ERR"'
check "nothing installed" '[ ! -e "$GDIR/ppio-$pn" ]'

# The dry run says where the key goes, never the key.
expect_ok g guard install --dry-run --with-key "$p"
check "dry run: the key's place" 'grep -q "GR_DIR/key: your ppio API key (mode 0600)" <<<"$OUT"'
check "dry run: never the key" '! grep -qF "$KEY" <<<"$OUT$ERR"'
check "dry run installs nothing" '[ ! -e "$GDIR/ppio-$pn" ]'

# Install with the process list watched: the key is in no process's arguments.
: >"$TMP/ps"
( while [ ! -e "$TMP/ps.stop" ]; do ps -eo args= >>"$TMP/ps"; done ) &
pspid=$!
CLEANUP_HOOKS+=("kill $pspid 2>/dev/null")
expect_ok g guard install --with-key "$p"
touch "$TMP/ps.stop"
wait "$pspid"
CLEANUP_HOOKS+=("kill \$(cat '$GDIR/ppio-$pn/pid' 2>/dev/null) 2>/dev/null")
check "the process list was watched during the install" 'grep -q "gpurent-guard" "$TMP/ps"'
# (but the simulated provider's, which is given it to check requests with)
check "the key in no process's arguments" '! grep -v "sim serve" "$TMP/ps" | grep -qF "$KEY"'
check "install prints the id" '[ "$OUT" = "$p" ]'
check "install says the key is on the instance" 'grep -q "ppio API key is on the instance" <<<"$ERR"'
check "and that the agent stops it" 'grep -q "agent stops the instance" <<<"$ERR"'
check "the key not in gpurent's output" '! grep -qF "$KEY" <<<"$OUT$ERR"'
check "the key file holds the key" '[ "$(cat "$GDIR/ppio-$pn/key")" = "$KEY" ]'
check "the key file is mode 0600" '[ "$(stat -c %a "$GDIR/ppio-$pn/key")" = 600 ]'
check "the key is in no other file there" '[ "$(grep -rlF "$KEY" "$GDIR" | wc -l)" = 1 ]'

# No ssh master, no watcher: the agent alone stops the idle instance through PPIO's API.
close_masters
wait_until 100 '[ -z "$(ssh_masters)" ]' || fail "ssh masters still up"
state() { sed -n "s/^$2=//p" "$GDIR/$1/state" 2>/dev/null; }
wait_until 300 '[ "$(state "ppio-$pn" verdict)" = stopped ]' ||
	fail "not stopped: $(cat "$GDIR/ppio-$pn/log" "$GDIR/ppio-$pn/out")"
check "the stop names the idle policy" 'grep -q "stop-ordered idle" "$GDIR/ppio-$pn/log"'
expect_ok serve_g ppio sim advance 5m
expect_ok g -o json show "$p"
check "stopped through PPIO's API" '[ "$(jq -r .state <<<"$OUT")" = stopped ]'
check "no key in the agent's log or output" '! grep -qF "$KEY" "$GDIR/ppio-$pn/log" "$GDIR/ppio-$pn/out" "$GDIR/ppio-$pn/state"'

# Lambda: only terminate. Off a terminal, refused without --yes; with it, terminated idle.
start_serve lambda --api-key "$LKEY"
use_provider lambda "$LKEY"
g config set providers lambda >/dev/null
launch_fresh gpus=1 type=on-demand -- --label t734l >"$TMP/id" || fail "launch lambda"
l=$(cat "$TMP/id")
ln=${l#lambda:}
expect_ok serve_g lambda sim advance 10m
expect_rc 2 g guard install --with-key "$l" </dev/null
check "refused without --yes: it would terminate" 'grep -q "terminate it and its disk would be lost: say --yes" <<<"$ERR"'
check "nothing installed on lambda" '[ ! -e "$GDIR/lambda-$ln" ]'
# (gpurent reaches a Lambda instance on port 22 only, so the agent of the dry run is started
# here by hand, as install would, with the key file install would write.)
expect_ok g guard install --dry-run --with-key --yes "$l" </dev/null
check "the lambda key not in the dry run" '! grep -qF "$LKEY" <<<"$OUT$ERR"'
printf '%s\n' "$OUT" >"$TMP/lambda-agent.sh"
mkdir -p "$GDIR/lambda-$ln"
(umask 077; printf '%s' "$LKEY" >"$GDIR/lambda-$ln/key")
PATH="$TMP/remote-bin:$PATH" sh "$TMP/lambda-agent.sh" </dev/null >"$TMP/lambda-agent.out" 2>&1 &
lpid=$!
CLEANUP_HOOKS+=("kill $lpid 2>/dev/null")
wait_until 300 '[ "$(state "lambda-$ln" verdict)" = stopped ]' ||
	fail "not terminated: $(cat "$GDIR/lambda-$ln/log" "$GDIR/lambda-$ln/out")"
check "the lambda stop names the idle policy" 'grep -q "stop-ordered idle" "$GDIR/lambda-$ln/log"'
expect_ok serve_g lambda sim advance 5m
run g -o json show "$l"
check "terminated through Lambda's API" '[ "$RC" = 3 ] || [ "$(jq -r .state <<<"$OUT")" = terminated ]'
pass
