#!/usr/bin/env bash
# gpurent run --sync, --fetch and --then against a real sshd: the synced directory honours
# --exclude and .gpurentignore; --then destroy happens only after every fetch succeeded
# (never after a failed one) and never while another job on the instance runs; a detached
# job's --fetch and --then are done by the next 'gpurent jobs', or by the watcher's next pass;
# labels, names, paths and env values carrying $(touch ...) run nothing; gpurent's own API
# keys do not cross over.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
export GPURENT_SIM_SPEED=200
start_sshd
pwn="\$(touch $TMP/pwned)"
launch() {
	launch_fresh type=on-demand -- --label "$pwn" --wait --timeout 60
}
state_of() {
	g show "$1" -o json | jq -r 'if type == "array" then .[0].state else .state end'
}

id=$(launch)
check "launched" '[[ $id == sim:i-* ]]'

# --sync: what the directory holds, less --exclude and .gpurentignore.
src="$TMP/src $pwn"
mkdir -p "$src/data" "$src/cache"
echo model >"$src/train.sh"
echo big >"$src/data/big.bin"
echo tmp >"$src/cache/x"
echo keep >"$src/notes.log"
printf '# comment\n\ncache/\n' >"$src/.gpurentignore"
export VAST_API_KEY=secret-vast-key
expect_ok g run "$id" --sync "$src" --exclude '*.log' --name "$pwn" --env "V=$pwn" -- \
	'ls -R . | sort | tr "\n" " "; echo; echo "V=$V"; env | grep -c secret-vast-key; true'
check "synced files, less excludes" \
	'[[ $OUT == *"big.bin"* && $OUT == *"train.sh"* && $OUT != *"notes.log"* && $OUT != *"cache"* ]]'
check "an env value is passed as it is" '[[ $OUT == *"V=$pwn"* ]]'
check "gpurent's API key did not cross" '[ "$(tail -1 <<<"$OUT")" = 0 ]'
check "nothing ran from a label, name, path or value" '[ ! -e "$TMP/pwned" ]'
unset VAST_API_KEY

# --fetch and --then destroy, attached: results here, then the instance destroyed.
out="$TMP/results $pwn"
expect_rc 0 g run "$id" --fetch "out:$out" --then destroy -- \
	'mkdir -p out && echo weights >"out/model.bin" && echo done'
check "fetched into the local directory" '[ "$(cat "$out/out/model.bin")" = weights ]'
check "the account says so" '[[ $ERR == *"fetched out to"* && $ERR == *"destroyed $id"* ]]'
check "the instance is destroyed" '[[ $(state_of "$id") == destroy* ]]'
expect_ok g jobs "$id" -o json
check "jobs keeps the account" '[[ $(jq -r ".[-1].account" <<<"$OUT") == *"destroyed"* ]]'

# A failed fetch: no destroy, and gpurent says why (exit 1 though the job succeeded).
id=$(launch)
expect_rc 1 g run "$id" --fetch "missing/$pwn:$TMP/none" --then destroy -- echo ok
check "the failed fetch is named and --then not done" \
	'[[ $ERR == *"fetching missing"*"failed"* && $ERR == *"--then destroy not done"* ]]'
check "the instance still runs" '[ "$(state_of "$id")" = running ]'
check "nothing ran from the fetch path" '[ ! -e "$TMP/pwned" ]'

# Detached, with another job running: --then waits for it, and the next 'jobs' after
# both ended does the fetch and the stop.
expect_ok g run "$id" --detach -- sleep 300
other=$OUT
opid=$(cat "$HOME/.gpurent/jobs/${other##*/}/pid")
CLEANUP_HOOKS+=("kill -- -$opid 2>/dev/null")
expect_ok g run "$id" --detach --fetch "r.txt:$TMP/late" --then stop -- 'echo late >r.txt'
job=$OUT
# Until the detached job has ended (bounded, 60 s: a loaded machine is slow to run it).
for ((i = 0; i < 600; i++)); do
	[ -e "$HOME/.gpurent/jobs/${job##*/}/status" ] && break
	sleep 0.1
done
expect_ok g jobs "$job" -o json
check "fetched, and --then waits for the running job" \
	'[ "$(cat "$TMP/late/r.txt")" = late ] && [[ $ERR == *"--then stop waits for $other"* ]]'
check "the instance still runs" '[ "$(state_of "$id")" = running ]'
expect_ok g kill "$other" --grace 2
check "with the other job ended, the waiting --then stops the instance" \
	'[[ $ERR == *"$job: stopped $id"* ]]'
for ((i = 0; i < 100; i++)); do
	[ "$(state_of "$id")" = stopped ] && break
	sleep 0.2
done
check "the instance stopped" '[ "$(state_of "$id")" = stopped ]'
expect_ok g jobs -o json
check "every account is kept" '[ "$(jq -r "[.[] | select(.account != null)] | length" <<<"$OUT")" -ge 3 ]'
check "still nothing ran from the hostile strings" '[ ! -e "$TMP/pwned" ]'

# A detached job that ends while nobody looks: the watcher's next pass carries out its
# --fetch and --then (the laptop that started it may be closed).
id=$(launch)
expect_ok g run "$id" --detach --fetch "w.txt:$TMP/watched" --then destroy -- 'echo seen >w.txt'
job=$OUT
for ((i = 0; i < 600; i++)); do
	[ -e "$HOME/.gpurent/jobs/${job##*/}/status" ] && break
	sleep 0.1
done
check "not done before the watcher looks" '[ "$(state_of "$id")" = running ]'
expect_ok g watch --once
check "the watcher fetched its result" '[ "$(cat "$TMP/watched/w.txt")" = seen ]'
check "and destroyed the instance: $ERR" '[[ $(state_of "$id") == destroy* ]]'
expect_ok g jobs "$job" -o json
check "the job's account says who did it" '[[ $(jq -r ".[-1].account" <<<"$OUT") == *"destroyed $id"* ]]'
pass
