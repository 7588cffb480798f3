#!/bin/bash
# Speed of the accelerator probe parsers (issue 13, section 7: one 8-GPU sample well under a
# millisecond) on the recorded 8-device samples of tests/data/probes/.
#
#   bench/probes.sh [BUILD_DIR]        (default: build; links its libgpurent.a)
#
# Prints a Markdown table for bench/README.md: per vendor the median of 9 runs of 2,000
# parses, per parse, against a floor measured in the same run (reading every byte of the same
# text once). Timings are measured, never asserted.
set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
lib=$build/libgpurent.a
[ -f "$lib" ] || { echo "bench/probes.sh: no $lib (meson setup $build && ninja -C $build)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpurent-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cc -O2 -I"$root/include" -o "$tmp/probe_parse" "$here/probe_parse.c" "$lib" \
	$(pkg-config --cflags --libs libcjson sqlite3) -lpthread -lm
d=$root/tests/data/probes
"$tmp/probe_parse" \
	nvidia:"$d/nvidia/h100x8.txt" \
	amd:"$d/amd/rocm-smi-mi300x-8.json" \
	hygon:"$d/hygon/hy-smi-invalid-8.json" \
	ascend:"$d/ascend/npu-smi-blocks-910b3-8.txt" \
	ascend:"$d/ascend/npu-smi-info-910b3-8.txt" \
	iluvatar:"$d/iluvatar/ixsmi-8.csv" \
	mthreads:"$d/mthreads/mthreads-gmi-q-8.txt" \
	cambricon:"$d/cambricon/cnmon-info-8.json" \
	metax:"$d/metax/mx-smi-c500-8.txt"
