#!/bin/bash
# Start-up and search speed of the gpurent command line, as medians of several runs.
#
#   bench/cli.sh [BUILD_DIR]        (default: build)
#
# Measures `gpurent --version` against an empty C program linked against the same shared
# libraries as the binary, `gpurent offers` over 300 and over 10,000 simulated offers (a
# filter, --sort, -o json > /dev/null), `gpurent ls` with a few instances, and the
# completion helper. Uses hyperfine when installed, else a loop timed with date +%s%N.
# Prints a Markdown table for bench/README.md. Timings are measured, never asserted.
set -eu

build=${1:-build}
gr=$(cd "$build" && pwd)/gpurent
runs=${RUNS:-30}
[ -x "$gr" ] || { echo "bench/cli.sh: no binary at $gr (meson setup $build && ninja -C $build)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GPURENT_HOME=$work/home GPURENT_SIM_SEED=1 GPURENT_SIM_TIME=1767225600 NO_COLOR=1
unset GPURENT_SIM_OFFERS GPURENT_PROFILE XDG_CONFIG_HOME XDG_STATE_HOME

# ---------------------------------------------------------------- the empty program
# Link exactly the shared libraries the binary needs (its DT_NEEDED entries), and keep them
# even though nothing uses them, so the difference is gpurent's own start-up.
needed=$(readelf -d "$gr" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
libs=()
for so in $needed; do
	case $so in
	libc.so.*|ld-linux*) ;;
	*) libs+=("-l:$so") ;;
	esac
done
printf 'int main(void){return 0;}\n' >"$work/empty.c"
${CC:-cc} -O2 -o "$work/empty" "$work/empty.c" -Wl,--no-as-needed "${libs[@]}"

# ---------------------------------------------------------------- state to list
"$gr" offers --limit 1 -o ids >/dev/null
for id in $("$gr" offers type=on-demand --sort price --limit 5 -o ids); do
	"$gr" launch "$id" --label bench -o ids >/dev/null
done
"$gr" sim advance 10m

filter=(gpu=h100,h200,a100 'gpus>=2' 'reliability>=0.9')
sort=(--sort gpu_price,reliability-)

# ---------------------------------------------------------------- timing
# median_ms NAME COMMAND...: the median wall time of COMMAND in milliseconds.
results=()
median_ms() {
	local name=$1 ms
	shift
	if command -v hyperfine >/dev/null; then
		hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/h.json" \
			--output=null "$(printf '%q ' "$@")" >/dev/null 2>&1 ||
			hyperfine --warmup 3 --runs "$runs" --export-json "$work/h.json" \
				"$(printf '%q ' "$@") >/dev/null" >/dev/null
		ms=$(jq -r '.results[0] | [.median, .min] | map(. * 100000 | round / 100) | join("|")' "$work/h.json")
	else
		local t0 t1 i
		local -a v=()
		for ((i = 0; i < 3; i++)); do "$@" >/dev/null; done
		for ((i = 0; i < runs; i++)); do
			t0=$(date +%s%N)
			"$@" >/dev/null
			t1=$(date +%s%N)
			v+=($(((t1 - t0) / 1000)))
		done
		ms=$(printf '%s\n' "${v[@]}" | sort -n | awk '{ a[NR] = $1 } END {
			m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf "%.2f|%.2f", m / 1000, a[1] / 1000 }')
	fi
	results+=("$name|$ms")
	printf '%-58s %8s ms (min %s ms)\n' "$name" "${ms%|*}" "${ms#*|}" >&2
}

median_ms "empty program, same shared libraries" "$work/empty"
median_ms "gpurent --version" "$gr" --version
median_ms "gpurent offers (300 offers), filter, --sort, -o json" \
	"$gr" offers "${filter[@]}" "${sort[@]}" -o json
export GPURENT_SIM_OFFERS=10000
"$gr" offers --limit 1 -o ids >/dev/null
median_ms "gpurent offers (10,000 offers), filter, --sort, -o json" \
	"$gr" offers "${filter[@]}" "${sort[@]}" -o json
median_ms "gpurent offers (10,000 offers), no filter, -o json" \
	"$gr" offers -o json
unset GPURENT_SIM_OFFERS
median_ms "gpurent ls (5 instances), -o json" "$gr" ls -o json
median_ms "gpurent __complete options offers" "$gr" __complete options offers

# ---------------------------------------------------------------- report
v_empty=${results[0]#*|}
v_version=${results[1]#*|}
echo
echo "| command | median | min |"
echo "|---|---:|---:|"
for r in "${results[@]}"; do
	v=${r#*|}
	printf '| %s | %s ms | %s ms |\n' "${r%%|*}" "${v%|*}" "${v#*|}"
done
echo
awk -v a="${v_version%|*}" -v b="${v_empty%|*}" -v c="${v_version#*|}" -v d="${v_empty#*|}" \
	'BEGIN { printf "--version / empty program: %.2fx (medians), %.2fx (minimums)\n", a / b, c / d }'
echo
echo "machine: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
	"$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
	"$(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
echo "gpurent: $("$gr" --version), linked against: ${needed//$'\n'/ }"
echo "runs: $runs per command$(command -v hyperfine >/dev/null && echo " (hyperfine $(hyperfine --version | cut -d' ' -f2))")"
