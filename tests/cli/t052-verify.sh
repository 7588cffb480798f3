#!/usr/bin/env bash
# verify: the machine's own nvidia-smi (a double replaying recordings on the sshd
# "instance") against what the instance was rented as; exit 0 when all is there, 14 for a
# wrong model, fewer GPUs or a smaller disk; launch --wait --verify.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/probes.sh"
# The market holds still, so the offer listed is still there when the launch asks for it
# (on a running clock a loaded machine let it go in between); it moves only by the advance
# below, once the instance exists.
export GPURENT_SIM_TIME=1790000000
start_sshd

# An offer is rented once: ask for a fresh one each launch.
h100x8() { g offers type=on-demand gpu=H100-SXM-80GB gpus=8 -o ids -n 1; }

# launch ARGS...: gpurent launch, with the clock moved on past the boot once the new
# instance is listed, so that a --wait sees it run. Bounded; stdout, stderr and the status
# are the launch's.
launch() {
	local n0 i advancer rc
	n0=$(g instances -o ids | wc -l)
	(for ((i = 0; i < 600; i++)); do
		if [ "$("$GPURENT" instances -o ids | wc -l)" -gt "$n0" ]; then
			exec "$GPURENT" sim advance 5m >/dev/null
		fi
		sleep 0.1
	done) &
	advancer=$!
	g launch "$@"
	rc=$?
	wait "$advancer"
	return "$rc"
}
# 1 GB of disk: the home filesystem of this machine has more.
id=$(launch "$(h100x8)" --disk 1 --wait --timeout 60)
check "launched" '[[ $id == sim:i-* ]]'

nvidia_double h100x8.txt
expect_ok g verify "$id"
check "a line per check, all there" '[[ $OUT == *gpu_model*H100-SXM-80GB*"H100-SXM-80GB (NVIDIA H100 80GB HBM3)"*ok* ]] &&
	[[ $OUT == *gpu_count*8*8*ok* ]] && [[ $OUT == *memory_per_gpu*"80 GB"*"81559 MiB"*ok* ]] &&
	[[ $OUT == *disk*"1 GB"*ok* ]]'
check "link, driver and CUDA as found, not promised" '[[ $OUT == *pcie_link*"gen 5 x16"*"not promised"* ]] &&
	[[ $OUT == *driver*550.90.07*"not promised"* ]] && [[ $OUT == *cuda*12.4*"not promised"* ]]'
# What verify saw is kept in the history, as every sample taken through the session's door.
expect_ok g metrics "$id" --since 1h -o json
check "the history holds verify's sample: eight GPUs, over ssh" \
	'jq -e "length == 8 and all(.[]; .source == \"ssh\" and .uuid != null)" <<<"$OUT" >/dev/null'
expect_ok g verify "$id" -o json
check "JSON: one object per check" 'jq -e "length == 7 and (map(select(.result == \"mismatch\")) | length) == 0
	and (.[] | select(.check == \"gpu_count\") | .promised == \"8\" and .found == \"8\")
	and (.[] | select(.check == \"cuda\") | .promised == null and .found == \"12.4\")" <<<"$OUT" >/dev/null'

# A wrong model: two A100s where eight H100s were rented.
nvidia_double a100-mig.txt
expect_rc 14 g verify "$id"
check "the model and the count are mismatches" '[[ $OUT == *gpu_model*H100-SXM-80GB*A100*mismatch* ]] &&
	[[ $OUT == *gpu_count*8*2*mismatch* ]]'
check "stderr says so" '[[ $ERR == *"not what it was rented as"* ]]'

# Fewer GPUs of the right model.
head -n 6 "$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/h100x4.txt"
nvidia_double "$TMP/h100x4.txt"
expect_rc 14 g verify "$id" -o json
check "only the count is wrong" 'jq -e "(map(select(.result == \"mismatch\")) | map(.check)) == [\"gpu_count\"]
	and (.[] | select(.check == \"gpu_count\") | .found == \"4\")" <<<"$OUT" >/dev/null'

# Less memory: the same name with half the memory.
sed 's/, 81559, 72790, 8247,/, 40000, 100, 39900,/' "$PROBE_DATA/nvidia/h100x8.txt" >"$TMP/h100-small.txt"
nvidia_double "$TMP/h100-small.txt"
expect_rc 14 g verify "$id" -o json
check "less memory is a mismatch" 'jq -e "(.[] | select(.check == \"memory_per_gpu\") | .result == \"mismatch\" and .found == \"40000 MiB (least)\")" <<<"$OUT" >/dev/null'

# A disk larger than this machine's home filesystem.
nvidia_double h100x8.txt
big=$(( $(df -Pk "$HOME" | awk 'NR == 2 { print $2 }') / 1000000 * 2 + 10 ))
id2=$(launch "$(h100x8)" --disk "$big" --wait --timeout 60)
check "launched with a big disk" '[[ $id2 == sim:i-* ]]'
expect_rc 14 g verify "$id2" -o json
check "the disk is short" 'jq -e "(map(select(.result == \"mismatch\")) | map(.check)) == [\"disk\"]" <<<"$OUT" >/dev/null'

# No GPU tool: verify cannot look, and says why (not a mismatch).
rm "$TMP/remote-bin/nvidia-smi"
expect_rc 12 g verify "$id"
check "no tool named" '[[ $ERR == *"no GPU tool"* ]]'

# launch --wait --verify: the id on stdout as ever, the report on stderr, 14 on a mismatch.
nvidia_double h100x8.txt
expect_ok launch "$(h100x8)" --disk 1 --wait --verify --timeout 60
check "verified launch: the id alone on stdout" '[[ $OUT == sim:i-* ]] && [ "$(wc -l <<<"$OUT")" = 1 ]'
check "the report on stderr" '[[ $ERR == *gpu_model*ok* ]]'
nvidia_double a100-mig.txt
expect_rc 14 launch "$(h100x8)" --disk 1 --wait --verify --timeout 60
check "a launch that is not what was rented: 14, the instance left running" '[[ $OUT == sim:i-* ]] &&
	[ "$(g show "$OUT" -o json | jq -r .state)" = running ]'
expect_rc 2 g launch "$(h100x8)" --verify
check "--verify needs --wait" '[[ $ERR == *"--verify needs --wait"* ]]'
pass
