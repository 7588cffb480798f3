#!/bin/bash
# The official vast.ai CLI (vast.py of github.com/vast-ai/vast-cli), unmodified, against
# `sim serve --dialect vast`: every command a provisioning script uses exits 0 with the output
# it gives against vast.ai, and a destroyed instance leaves `show instances`.
#
# Needs VAST_CLI=/path/to/vast.py (registered only when meson is set up with
# -Dvast_cli=PATH), python3 and python3-requests; exits 77 without them. CI replays the
# recorded requests instead (t330). With RECORD_DIR=DIR it also
# records the session for that replay: DIR/requests.jsonl (the requests, as
# `sim serve --log-requests` writes them, with the command and clock-advance lines between)
# and DIR/transcript.txt (each command, its exit status and its output).
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/../cli/serve.sh"

if [ -z "${VAST_CLI:-}" ] || [ ! -f "$VAST_CLI" ]; then
	echo "SKIP $TEST_NAME: VAST_CLI is not set to vast.py of vast-ai/vast-cli (CI cannot" \
	    "download it; t330 replays its recorded requests)"
	exit 77
fi
if ! python3 -c 'import requests' 2>/dev/null; then
	echo "SKIP $TEST_NAME: python3 with the requests module is needed to run vast.py"
	exit 77
fi

# A fixed world: the same offers and ids whenever it is recorded or replayed.
export GPURENT_SIM_TIME=1780000000
export HOME="$TMP/client-home" NO_COLOR=1 COLUMNS=200
mkdir -p "$HOME"
KEY=conformance-key
LOG_OPTS=()
if [ -n "${RECORD_DIR:-}" ]; then
	mkdir -p "$RECORD_DIR"
	: >"$RECORD_DIR/requests.jsonl"
	: >"$RECORD_DIR/transcript.txt"
	LOG_OPTS=(--log-requests "$RECORD_DIR/requests.jsonl")
fi
start_serve vast --api-key "$KEY" "${LOG_OPTS[@]+"${LOG_OPTS[@]}"}"
# The legacy client fetches the GPU names from $VAST_URL as it starts, outside --url.
export VAST_URL=$SERVE_URL

note() {
	[ -n "${RECORD_DIR:-}" ] && jq -cn --arg k "$1" --arg v "$2" '{($k): $v}' \
	    >>"$RECORD_DIR/requests.jsonl"
	return 0
}

# vast ARGS...: one client command, which must exit 0; its output in $OUT.
vast() {
	note command "$*"
	expect_ok python3 "$VAST_CLI" --url "$SERVE_URL" --api-key "$KEY" "$@"
	# Its tables are coloured whatever the terminal; the checks read the text.
	OUT=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$OUT")
	if [ -n "${RECORD_DIR:-}" ]; then
		printf '$ vast.py %s\n(exit %s)\n%s\n\n' "$*" "$RC" "$OUT" >>"$RECORD_DIR/transcript.txt"
	fi
}

advance() {
	note advance "$1"
	expect_ok serve_g vast sim advance "$1"
}

vast search offers 'num_gpus=1 reliability>0.9' -o dph_total --limit 5
check "search offers prints a table of 5 offers" \
    '[ "$(grep -c "^ *[1-5]  [0-9]" <<<"$OUT")" -ge 5 ]'
vast search offers 'gpu_ram>=20 num_gpus=1' -o 'dph_total-' --limit 3 --raw
check "search offers --raw is a JSON array of 3" 'jq -e "length == 3" <<<"$OUT" >/dev/null'
check "offers are ordered by dph_total descending" \
    'jq -e "[.[].dph_total] | . == (sort | reverse)" <<<"$OUT" >/dev/null'
OFFER=$(jq -r '.[0].id' <<<"$OUT")
vast search offers --type bid 'num_gpus>=2' --limit 2 --raw
check "bid search answers interruptible offers" 'jq -e "all(.[]; .is_bid)" <<<"$OUT" >/dev/null'

vast create instance "$OFFER" --image pytorch/pytorch:latest --disk 20 --ssh --direct \
    --label rehearsal --env '-e K=V -p 8888:8888' --onstart-cmd 'echo hi' --raw
check "create answers new_contract" 'jq -e ".success and (.new_contract | type == \"number\")" <<<"$OUT" >/dev/null'
ID=$(jq -r .new_contract <<<"$OUT")
advance 10m

vast show instances
check "show instances lists the instance running" \
    'grep -Eq "^ +1 +$ID +[0-9]+ +running" <<<"$OUT"'
vast show instances --raw
check "show instances --raw: one row, with extra_env turned into an object" \
    'jq -e "length == 1 and (.[0].extra_env | type == \"object\") and .[0].label == \"rehearsal\"" <<<"$OUT" >/dev/null'
vast show instances -q
check "show instances -q prints the id" '[ "$OUT" = "$ID" ]'
vast show instance "$ID"
check "show instance prints its row" 'grep -q "rehearsal" <<<"$OUT"'
vast show instance "$ID" --raw
check "show instance --raw is the row" 'jq -e ".id == $ID and .actual_status == \"running\"" <<<"$OUT" >/dev/null'

vast stop instance "$ID"
check "stop says so" '[ "$OUT" = "stopping instance $ID." ]'
advance 10m
vast show instance "$ID" --raw
check "the instance stopped" 'jq -e ".actual_status == \"stopped\"" <<<"$OUT" >/dev/null'
vast start instance "$ID"
check "start says so" '[ "$OUT" = "starting instance $ID." ]'
advance 10m
vast label instance "$ID" renamed
check "label says so" '[ "$OUT" = "label for $ID set to renamed." ]'
vast show instance "$ID" --raw
check "the label changed and it runs again" \
    'jq -e ".label == \"renamed\" and .actual_status == \"running\"" <<<"$OUT" >/dev/null'
vast logs "$ID" --tail 100
check "logs prints the log" 'grep -q "container log of instance $ID" <<<"$OUT"'

vast show user
check "show user prints the account table" 'grep -q "Credit" <<<"$OUT"'
vast show user --raw
check "show user --raw has the credit and not the key" \
    'jq -e "(.credit | type == \"number\") and (has(\"api_key\") | not)" <<<"$OUT" >/dev/null'

vast destroy instance "$ID"
check "destroy says so" '[ "$OUT" = "destroying instance $ID." ]'
vast show instances --raw
check "a destroyed instance leaves show instances" 'jq -e "length == 0" <<<"$OUT" >/dev/null'
vast show instance "$ID" --raw
check "show instance of a destroyed one answers instances null" \
    'jq -e ".instances == null" <<<"$OUT" >/dev/null'

# Stopped right after it was created, while it still loads: vast records the intent and
# the machine follows once loaded (issue 28). On the machine the first one left.
advance 1m
vast create instance "$OFFER" --image pytorch/pytorch:latest --disk 20 --ssh --label early --raw
check "the second create answers new_contract" \
    'jq -e ".success and (.new_contract | type == \"number\")" <<<"$OUT" >/dev/null'
ID=$(jq -r .new_contract <<<"$OUT")
vast stop instance "$ID"
check "a stop while it loads says so, as for a running one" '[ "$OUT" = "stopping instance $ID." ]'
vast show instance "$ID" --raw
check "still loading, with intended status stopped" \
    'jq -e ".actual_status == \"loading\" and .intended_status == \"stopped\"" <<<"$OUT" >/dev/null'
vast label instance "$ID" early-stopped
check "a label while it loads says so" '[ "$OUT" = "label for $ID set to early-stopped." ]'
advance 10m
vast show instance "$ID" --raw
check "it ended stopped, without ever running, and labelled" \
    'jq -e ".actual_status == \"stopped\" and .intended_status == \"stopped\" and .label == \"early-stopped\" and .uptime_mins == null" <<<"$OUT" >/dev/null'
vast destroy instance "$ID"
check "the second destroy says so" '[ "$OUT" = "destroying instance $ID." ]'
pass
