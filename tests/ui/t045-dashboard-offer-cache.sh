#!/bin/bash
# t045 (issue 17 part 4): the dashboard shows the offers kept from the last search at once,
# then asks the provider in the background: here the provider is gone, so the kept rows
# stay and the status line says the refresh failed.
. "$(dirname "$0")/lib.sh"

"$G" sim serve --dialect vast --port 0 --api-key k >"$T/serve.out" 2>"$T/serve.err" &
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

# The dashboard asks with the config's filter (none): the same query as a plain search.
first=$("$G" --provider vast -o ids offers --limit 0 | sort | head -1)
[ -n "$first" ] || { echo "no vast offers to keep" >&2; exit 1; }
kill $serve
wait $serve 2>/dev/null

start_dash 140 40 --provider vast
wait_for '^  vast:[0-9]+ ' 50 && ok "the kept vast offers show with the provider gone" ||
    fail "no kept offers: $(screen)"
wait_for 'vast: .*\(offers\)' 100 && ok "the background refresh ran, and its failure is named" ||
    fail "no refresh error: $(row 38)"
screen | grep -Eq '^  vast:[0-9]+ ' && ok "the kept rows stay after the failed refresh" ||
    fail "rows gone: $(screen)"
keys q
wait_for 'DASH-EXIT-0' 30 && ok "q quits" || fail "quit: $(screen)"
finish
