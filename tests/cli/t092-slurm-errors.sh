#!/usr/bin/env bash
# Slurm connection and authentication against a real cluster: the token with or without its
# SLURM_JWT= prefix or from the vault, an expired or forged token (exit 4, saying how to get
# a new one), no token, no address, slurmrestd on a unix socket, Slurm's own errors array,
# and a slurmrestd that is down (exit 5).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm

# scontrol prints SLURM_JWT=...: both forms work.
check "the token has its prefix" '[[ "$SLURM_JWT" == SLURM_JWT=* ]]'
expect_ok g offers -o ids
check "offers with the prefixed token" '[ "$(wc -l <<<"$OUT")" = 2 ]'
TOKEN=${SLURM_JWT#SLURM_JWT=}
SLURM_JWT=$TOKEN expect_ok g offers -o ids
check "offers with the bare token" '[ "$(wc -l <<<"$OUT")" = 2 ]'

# The token is never in a trace.
expect_ok g --debug offers -o ids
check "traced" '[[ "$ERR" == *"X-SLURM-USER-TOKEN"* ]]'
check "not in verbose output" '[[ "$ERR$OUT" != *"$TOKEN"* ]]'

# From the vault, with SLURM_JWT unset; login checks it with the cluster first. A token the
# cluster refuses is not stored, even with a good one in SLURM_JWT.
printf '%s\n' "${TOKEN%?}x" | "$GPURENT" login slurm --stdin >/dev/null 2>"$TMP/login.err"
RC=$? ERR=$(cat "$TMP/login.err")
check "login refuses a forged token: exit 4" '[ "$RC" = 4 ]'
printf '%s\n' "$TOKEN" | env -u SLURM_JWT "$GPURENT" login slurm --stdin \
	>/dev/null 2>"$TMP/login.err" || {
	ERR=$(cat "$TMP/login.err")
	fail "login slurm"
}
env -u SLURM_JWT "$GPURENT" offers -o ids >"$TMP/out" 2>"$TMP/err"
OUT=$(cat "$TMP/out") ERR=$(cat "$TMP/err")
check "offers with the token from 'gpurent login slurm'" '[ "$(wc -l <<<"$OUT")" = 2 ]'

# An expired token: exit 4 before any request, with how to get a new one.
OLD=$(sl scontrol token username=root lifespan=1) || fail "no short token"
sleep 2.5
SLURM_JWT=$OLD expect_rc 4 g offers
check "says it expired" '[[ "$ERR" == *"expired"* ]]'
check "says how to get a new one" '[[ "$ERR" == *"scontrol token"* ]]'
check "no token in the message" '[[ "$ERR" != *"${OLD#SLURM_JWT=}"* ]]'
# A forged one (its signature changed) is refused by the cluster: exit 4 too.
FORGED=${TOKEN%?}
[ "${TOKEN: -1}" = A ] && FORGED+=B || FORGED+=A
SLURM_JWT=$FORGED expect_rc 4 g offers
check "the cluster refused it" '[[ "$ERR" == *"refused the token"* ]]'
check "a forged token is never echoed" '[[ "$ERR" != *"$FORGED"* ]]'
# None at all.
env -u SLURM_JWT GPURENT_HOME="$TMP/empty" "$GPURENT" --provider slurm offers >/dev/null \
	2>"$TMP/err"
RC=$? ERR=$(cat "$TMP/err")
check "no token: exit 4" '[ "$RC" = 4 ]'
check "no token: how to get one" '[[ "$ERR" == *"scontrol token"* ]]'

# No address.
env -u GPURENT_SLURM_URL "$GPURENT" offers >/dev/null 2>"$TMP/err"
RC=$? ERR=$(cat "$TMP/err")
check "no address: exit 2" '[ "$RC" = 2 ]'
check "no address: names the setting" '[[ "$ERR" == *"slurm.url"* ]]'
GPURENT_SLURM_URL=http://192.0.2.1:6820 expect_rc 2 g offers
check "plain http off loopback is refused" '[[ "$ERR" == *"refusing"* ]]'

# Slurm's own errors array reaches the user verbatim: three nodes from a one-node partition.
expect_rc 2 g launch slurm:short/h100 --nodes 3
check "Slurm's words" '[[ "$ERR" == *"Requested partition configuration not available now"* ]]'
check "and cancelled the job Slurm queued anyway" '[[ "$ERR" == *"anyway, cancelled"* ]]'
for ((i = 0; i < 20; i++)); do [ -z "$(sl squeue -h -t PD)" ] && break; sleep 0.25; done
check "no job was left waiting" '[ -z "$(sl squeue -h -t PD)" ]'

# Sizing an allocation is a cluster's: a provider that rents machines refuses it.
expect_rc 12 g launch sim:o-000001 --count 2
check "says which provider cannot" '[[ "$ERR" == *"'"'"'sim'"'"' cannot size an allocation"* ]]'

# slurmrestd on a unix socket (libcurl's CURLOPT_UNIX_SOCKET_PATH).
REST_USER=gpurent-slurmrestd
mkdir -p "$TMP/slurm/rest"
chown "$REST_USER" "$TMP/slurm/rest"
setpriv --reuid="$REST_USER" --regid="$(id -g "$REST_USER")" --clear-groups -- \
	env SLURM_JWT=daemon SLURM_CONF="$SLURM_CONF" /usr/sbin/slurmrestd -a rest_auth/jwt \
	-s openapi/v0.0.38 "unix:$TMP/slurm/rest/sock" >"$TMP/slurm/log/rest-unix.log" 2>&1 &
UNIX_REST=$!
CLEANUP_HOOKS=("kill $UNIX_REST 2>/dev/null; wait $UNIX_REST 2>/dev/null" "${CLEANUP_HOOKS[@]}")
for ((i = 0; i < 50; i++)); do [ -S "$TMP/slurm/rest/sock" ] && break; sleep 0.1; done
GPURENT_SLURM_URL=unix:$TMP/slurm/rest/sock expect_ok g offers -o ids
check "offers through the socket" '[ "$(wc -l <<<"$OUT")" = 2 ]'
GPURENT_SLURM_URL=unix:relative/sock expect_rc 2 g offers

# slurmrestd down: exit 5, saying where it was asked.
REST_PID=$(awk '$2 == "slurmrestd" { print $1 }' "$TMP/slurm/pids")
kill "$REST_PID"
for ((i = 0; i < 50; i++)); do kill -0 "$REST_PID" 2>/dev/null || break; sleep 0.1; done
expect_rc 5 g offers
check "says slurmrestd does not answer" '[[ "$ERR" == *"slurmrestd at "*"does not answer"* ]]'
expect_rc 5 g ls
pass
