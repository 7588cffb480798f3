#!/usr/bin/env bash
# bench/probes.sh BUILD_DIR - parsing one 8-GPU nvidia-smi sample, with its floor
# (bench/probe_parse.c), built against BUILD_DIR's libgpurent.a. RUNS and BATCH as there.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-build}" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -I"$HERE/../include" -o "$TMP/probe_parse" "$HERE/probe_parse.c" "$BUILD/libgpurent.a"
"$TMP/probe_parse" "$HERE/../tests/data/probes/nvidia/h100x8.txt" "${RUNS:-21}" "${BATCH:-2000}"
