#!/usr/bin/env bash
# Slurm offers against a real cluster: one per partition x GPU type, matching what sinfo
# says (GPUs free, nodes, time limit), the queue in front, and a price only when configured.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm.sh"
start_slurm

# What sinfo says of a partition: "FREE NODES LIMIT_S".
sinfo_view() {
	local p=$1 free nodes limit
	free=$(sl sinfo -h -N -p "$p" -O 'NodeList:10,Gres:40,GresUsed:60' |
		awk '{ split($2, g, ":"); split($3, u, ":"); sub(/\(.*/, "", u[3]); f += g[3] - u[3] }
			END { print f }')
	nodes=$(sl sinfo -h -p "$p" -o %D)
	limit=$(sl sinfo -h -p "$p" -o %l |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
	echo "$free $nodes $limit"
}
offer_view() {
	jq -r --arg id "$1" '.[] | select(.id == $id) | "\(.available) \(.nodes) \(.time_limit_s)"' \
		<<<"$OUT"
}

expect_ok g offers -o json
check "two offers, one per partition" '[ "$(jq length <<<"$OUT")" = 2 ]'
check "gpu/h100 matches sinfo" '[ "$(offer_view slurm:gpu/h100)" = "$(sinfo_view gpu)" ]'
check "short/h100 matches sinfo" '[ "$(offer_view slurm:short/h100)" = "$(sinfo_view short)" ]'
check "8 GPUs free on gpu" '[ "$(offer_view slurm:gpu/h100)" = "8 2 14400" ]'
check "4 GPUs per node" '[ "$(jq -r ".[0].gpus" <<<"$OUT")" = 4 ]'
check "the GRES type is kept as the GPU name" '[ "$(jq -r ".[0].gpu_name" <<<"$OUT")" = h100 ]'
check "no price without a rate: null, never 0" \
	'[ "$(jq -r "[.[].price_hour] | unique | .[0]" <<<"$OUT")" = null ]'
check "nothing queued" '[ "$(jq -r "[.[].queued] | add" <<<"$OUT")" = 0 ]'

# A price filter says why the cluster's offers are gone.
expect_ok g offers 'price<100' -o ids
check "a price filter leaves unpriced offers out" '[ -z "$OUT" ]'
check "and says so" '[[ "$ERR" == *"2 offers have no price"*"slurm.price"* ]]'

# Two GPUs taken on one node: free counts drop exactly as sinfo's.
expect_ok g launch slurm:gpu/h100 --count 2 --label hold
JOB=${OUT#slurm:}
wait_job_state "$JOB" RUNNING 60 || fail "job $JOB never ran"
expect_ok g offers -o json
check "gpu/h100 still matches sinfo with a job" \
	'[ "$(offer_view slurm:gpu/h100)" = "$(sinfo_view gpu)" ]'
check "6 GPUs free" '[ "$(offer_view slurm:gpu/h100 | cut -d" " -f1)" = 6 ]'

# A job that cannot start now is in the queue in front of the offer.
expect_ok g launch slurm:gpu/h100 --count 4 --nodes 2 --label waits
expect_ok g offers -o json
check "one job queued for gpu/h100" \
	'[ "$(jq -r ".[] | select(.id == \"slurm:gpu/h100\") | .queued" <<<"$OUT")" = 1 ]'
check "none for short/h100" \
	'[ "$(jq -r ".[] | select(.id == \"slurm:short/h100\") | .queued" <<<"$OUT")" = 0 ]'

# A configured charge-back rate prices the offer per GPU-hour.
expect_ok g config set slurm.price.h100 2.10
expect_ok g offers -o json
check "4 x 2.10 an hour" \
	'[ "$(jq -r ".[] | select(.id == \"slurm:gpu/h100\") | .price_hour" <<<"$OUT")" = 8.4 ]'
expect_ok g offers 'price<100' -o ids
check "priced offers pass a price filter" '[ "$(wc -l <<<"$OUT")" = 2 ]'
check "without the note" '[[ "$ERR" != *"no price"* ]]'
pass
