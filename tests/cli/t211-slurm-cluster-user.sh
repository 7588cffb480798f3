#!/usr/bin/env bash
# tests/slurm/cluster leaves no system user behind: the first start makes slurmrestd's user,
# the last stop of the clusters running side by side removes it (not while another still
# uses it); a user that existed before stays; a registration left by a cluster that was
# never stopped (its directory gone) does not keep the user forever. A user name and a
# registry of this test's own, so that the other Slurm tests running beside it are untouched.
. "$(dirname "$0")/lib.sh"
CLUSTER="$SRCDIR/tests/slurm/cluster"
[ "$(id -u)" = 0 ] || fail "the Slurm cluster needs root (slurmd starts jobs as their users)"
U=gpurent-t211-$$
export GPURENT_SLURM_REST_USER=$U GPURENT_SLURM_CLUSTERS=$TMP/registry
CLEANUP_HOOKS+=("'$CLUSTER' stop '$TMP/a'; '$CLUSTER' stop '$TMP/b'; '$CLUSTER' stop '$TMP/c'"
	"userdel '$U' 2>/dev/null")
has_user() { id "$U" >/dev/null 2>&1; }
registered() { compgen -G "$TMP/registry/c-*" | wc -l; }

check "no user $U to begin with" '! has_user'
"$CLUSTER" start "$TMP/a" || fail "cluster a did not start"
check "the first start makes the user" 'has_user'
check "slurmrestd runs as it" '[ -n "$(pgrep -u "$U" slurmrestd)" ]'
"$CLUSTER" start "$TMP/b" || fail "cluster b did not start"
check "two clusters registered" '[ "$(registered)" = 2 ]'
"$CLUSTER" stop "$TMP/a"
check "b still uses the user: it stays" 'has_user'
check "b's slurmrestd still runs" '[ -n "$(pgrep -u "$U" slurmrestd)" ]'
# A registration left by a cluster whose directory is gone: dropped, not waited for.
printf '%s\n' "$TMP/gone" >"$TMP/registry/c-stale"
uid=$(id -u "$U") || fail "no uid for $U"
"$CLUSTER" stop "$TMP/b"
check "the last stop removes the user" '! has_user'
check "and its group" '! getent group "$U" >/dev/null'
check "the registry is empty" '[ "$(registered)" = 0 ]'
check "nothing runs as its uid" '! pgrep -u "$uid" >/dev/null'

# A user that was there before the cluster stays after it.
useradd --system --no-create-home --shell /usr/sbin/nologin "$U" || fail "useradd"
"$CLUSTER" start "$TMP/c" || fail "cluster c did not start"
"$CLUSTER" stop "$TMP/c"
check "a user made by someone else stays" 'has_user'
userdel "$U" || fail "userdel"
pass
