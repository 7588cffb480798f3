#!/bin/bash
# make-fixture.sh GPURENT OUT.sql: the state database that build of gpurent writes for one
# fixed story over the simulator (two instances launched, metrics read twice, one destroyed,
# a runtime warning from the watcher, a group where the build has groups), dumped as SQL
# text without the offer cache's rows (raw records of that build, which a newer one drops).
# Build an older commit with `git worktree add /tmp/old-C C` and meson there, then run this
# with its binary; t701-state-upgrade.sh says what the old build printed for it.
set -u
G=$1; out=$2
d=$(mktemp -d -t fixture.XXXXXX)
export GPURENT_HOME=$d/home GPURENT_SIM_SEED=42 GPURENT_SIM_TIME=1796119200 NO_COLOR=1
unset GPURENT_SIM_SPEED
g() { "$G" "$@"; }
a=$(g launch "$(g offers gpu=h100 type=on-demand -o ids -n 1)" --label fix-a -o ids)
b=$(g launch "$(g offers gpu=a100 type=on-demand -o ids -n 1)" --label fix-b -o ids)
g sim advance 90m >/dev/null
g metrics "$a" >/dev/null
g sim advance 30m >/dev/null
g metrics "$a" >/dev/null
g sim advance 1h >/dev/null
g destroy "$b" --yes >/dev/null
g config set runtime.max 1h >/dev/null
g config set runtime.action notify >/dev/null
g watch --once >/dev/null 2>&1
g group create web --gpu A100 --max 2 --target-util 60 >/dev/null 2>&1
sqlite3 "$GPURENT_HOME/state.db" .dump | grep -v '^INSERT INTO offer_cache' >"$out"
rm -rf "$d"
