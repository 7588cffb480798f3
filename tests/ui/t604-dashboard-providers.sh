#!/bin/bash
# t604: one provider hangs (vast behind `sim serve --latency`), one is down (lambda on a
# closed port); the status line names both, sim's rows stay, and keys are still answered
# at once.
. "$(dirname "$0")/lib.sh"

"$G" sim serve --dialect vast --port 0 --api-key k --latency 25000 >"$T/serve.out" \
    2>"$T/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; tm kill-server 2>/dev/null; rm -rf "$T"' EXIT INT TERM
url=
for ((i = 0; i < 100; i++)); do
	url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$T/serve.out")
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$T/serve.err" >&2; echo "sim serve did not start" >&2; exit 1; }
export GPURENT_VAST_URL=$url GPURENT_VAST_API_KEY=k
export GPURENT_LAMBDA_URL=http://127.0.0.1:9 GPURENT_LAMBDA_API_KEY=k

start_dash 140 40 --provider sim --provider vast --provider lambda
wait_for '^  sim:o-' 50 && ok "sim's offers arrive while vast hangs" || fail "sim: $(screen)"
wait_for 'lambda: .*\(offers\)' 100 && ok "the status line names lambda" || fail "lambda: $(row 38)"
wait_for 'vast: no answer for [0-9]+s' 100 && ok "and says vast is not answering" ||
    fail "vast: $(row 38)"

# Keys are answered although vast's lanes are blocked: vast never answers, so a screen that
# waited for it would never switch. How fast it switches is bench/dashboard.sh's business.
for k in 2 4 1 2 1; do
	keys "$k"
	case $k in
	1) want=' of [0-9]+ offers' ;;
	2) want='instances? ' ;;
	4) want='^  Burn rate' ;;
	esac
	wait_for "$want" 50 && ok "view $k shows while vast hangs" || fail "view $k: $(screen)"
done
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits at once while a provider hangs" || fail "quit: $(screen)"
finish
