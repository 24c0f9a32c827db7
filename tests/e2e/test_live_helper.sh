# The real binary, its embedded helper and the host's loader, against fake libcuda/NVML
# whose answers each case sets (tests/fakes), and against NVIDIA's real stub when present.
source "$(dirname "$0")/lib.sh"

[ -f "$FAKES/libcuda.so.1" ] || { echo "SKIP: fakes not built in $FAKES"; exit 125; }
[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "SKIP: no glibc loader on this machine"; exit 125; }
FAKE_ARGS=(--libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1")
unset CUDA_VISIBLE_DEVICES LD_PRELOAD

# This machine has no GPU: host-layer findings (no NVIDIA GPU on the PCI bus) are expected here;
# what these cases check is the CUDA and NVML part, which the fakes decide.
run_gd healthy "${FAKE_ARGS[@]}"
expect_out healthy "^\[(ok|✓)\] CUDA driver \(libcuda\): CUDA 13\.0 .*cuInit OK"
expect_no_out healthy "^(error|warning) \[(cuda|nvml)\."

FAKE_CUDA_DEVICE_COUNT=8 FAKE_CUDA_INIT_RESULT=100 run_gd novis "${FAKE_ARGS[@]}"
expect_rc novis 1
expect_out novis "cuInit failed: 100 CUDA_ERROR_NO_DEVICE.*NVML sees 8 GPUs"
expect_out novis "^error \[cuda.no-device-while-nvml-sees-gpus\]"

# As on the real H200 (tests/hosts/h200-live-cvd99): the first run finds no GPU, the clean run
# without the variable finds it, so the variable is named as the cause.
CUDA_VISIBLE_DEVICES=99 run_gd cvd "${FAKE_ARGS[@]}" -v
expect_rc cvd 1
expect_out cvd "^error \[cuda.visible-devices-hides-gpus\]"
expect_out cvd 'set to "99"'
expect_out cvd '^  cuda\.clean_env\.init\.result = 0'

start=$(date +%s)
FAKE_CUDA_HANG_IN=cuInit run_gd hang "${FAKE_ARGS[@]}" --cuda-timeout 2
elapsed=$(($(date +%s) - start))
expect_rc hang 1
expect_out hang "^error \[cuda.init-hang\]"
expect_out hang "cuInit"
checks=$((checks + 1))
[ "$elapsed" -le 10 ] || fail "hang case took ${elapsed}s with --cuda-timeout 2"

FAKE_CUDA_CRASH_IN=cuInit run_gd crash "${FAKE_ARGS[@]}"
expect_rc crash 1
expect_out crash "^error \[cuda.helper-crash\]"
expect_out crash "SIGSEGV"

FAKE_CUDA_CONTEXT_RESULT=2 run_gd ctx "${FAKE_ARGS[@]}"
expect_rc ctx 1
expect_out ctx "^error \[cuda.context-creation-fails\]"

FAKE_NVML_INIT_RESULT=18 FAKE_CUDA_INIT_RESULT=803 run_gd mismatch "${FAKE_ARGS[@]}"
expect_rc mismatch 1
expect_out mismatch "^error \[nvml.driver-library-mismatch\]"

FAKE_CUDA_FLOOD_STDOUT=20000000 run_gd flood "${FAKE_ARGS[@]}" --json
expect_no_out flood '"id": "cuda\.'
expect_out flood '"cuda.helper.stdout"'
checks=$((checks + 1))
[ "$(stat -c %s "$TMP/flood.out")" -lt 2000000 ] || fail "a stdout flood was not cut"

FAKE_CUDA_STDOUT="hello from libcuda" run_gd printed "${FAKE_ARGS[@]}" -v
expect_out printed "cuda.helper.stdout = hello from libcuda"

run_gd missing --libcuda "$TMP/no/libcuda.so.1"
expect_rc missing 1
# On a host without GPUs the no-GPU finding is the root cause and lists this one as explained.
expect_out missing "cuda\.libcuda-not-found"

run_gd nocuda --no-cuda
expect_out nocuda "not checked"
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "--no-cuda exit $rc"

STUB=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -f "$STUB" ]; then
  run_gd stub --libcuda "$STUB"
  expect_rc stub 1
  expect_out stub "^error \[cuda.stub-libcuda\]"
  expect_out stub "34 CUDA_ERROR_STUB_LIBRARY"
else
  skip "the real-stub case: $STUB absent (no CUDA toolkit here)"
fi

# Shared nodes (issue 23): what other jobs do to a GPU is not the node's fault, in both scopes.
# This machine has no GPU, so the host layers report it; the cases look at the CUDA and NVML findings.
gpu_ids='[f["id"] for f in r["findings"] if f["id"].split(".")[0] in ("cuda", "nvml")]'
# A torch job holds all but 18 MiB of the GPU (as measured on the real H200): the context answers 2.
export FAKE_CUDA_CONTEXT_RESULT=2 FAKE_NVML_PROCESSES=4242 FAKE_NVML_PROCESS_MIB=143000 FAKE_NVML_MEMORY=143753,143771
run_gd busy_all "${FAKE_ARGS[@]}" --json --no-capture
expect_json busy_all "$gpu_ids" "['cuda.gpu-busy']"
expect_json busy_all '[(f["severity"], f["scope"], f["action"]) for f in r["findings"] if f["id"] == "cuda.gpu-busy"]' \
  "[('warning', 'environment', 'none')]"
expect_json busy_all '"held by pid 4242" in [f for f in r["findings"] if f["id"] == "cuda.gpu-busy"][0]["message"]' True
expect_fact busy_all cuda.context.fault_count 0
run_gd busy_node "${FAKE_ARGS[@]}" --json --no-capture --scope node
expect_json busy_node "$gpu_ids" "[]"
expect_json busy_node '"cuda.gpu-busy" in r["summary"]["left_out"]' True
run_gd busy_prom "${FAKE_ARGS[@]}" --format prometheus
expect_out busy_prom '^gpudoctor_gpu_busy\{index="0",bus_id="0000:18:00.0",uuid="GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"\} 1$'
expect_out busy_prom '^gpudoctor_gpu_proven\{index="0",.*\} NaN$'
# The same answer with no process on the GPU is a fault of the GPU, in both scopes.
unset FAKE_NVML_PROCESSES FAKE_NVML_PROCESS_MIB FAKE_NVML_MEMORY
run_gd oom_alone "${FAKE_ARGS[@]}" --json --no-capture --scope node
expect_json oom_alone "$gpu_ids" "['cuda.context-creation-fails']"
run_gd oom_prom "${FAKE_ARGS[@]}" --format prometheus
expect_out oom_prom '^gpudoctor_gpu_busy\{index="0",.*\} 0$'
expect_out oom_prom '^gpudoctor_gpu_proven\{index="0",.*\} 0$'
# Exclusive_Process while another job holds the GPU: the refusal (46) is found, as the user's.
export FAKE_CUDA_CONTEXT_RESULT=46 FAKE_NVML_COMPUTE_MODE=3 FAKE_NVML_PROCESSES=4242
run_gd excl_all "${FAKE_ARGS[@]}" --json --no-capture
expect_json excl_all "$gpu_ids" "['nvml.compute-mode-exclusive-busy']"
expect_json excl_all '[f["consequences"] for f in r["findings"] if f["id"] == "nvml.compute-mode-exclusive-busy"]' "[['cuda.gpu-busy']]"
run_gd excl_node "${FAKE_ARGS[@]}" --json --no-capture --scope node
expect_json excl_node "$gpu_ids" "[]"
# 46 in the Default mode with a process on the GPU is no sharing answer: a fault.
export FAKE_NVML_COMPUTE_MODE=0
run_gd unavailable "${FAKE_ARGS[@]}" --json --no-capture --scope node
expect_json unavailable "$gpu_ids" "['cuda.context-creation-fails']"
unset FAKE_CUDA_CONTEXT_RESULT FAKE_NVML_COMPUTE_MODE FAKE_NVML_PROCESSES
# Exclusive_Process on eight GPUs, CUDA_VISIBLE_DEVICES=0 (CUDA enumerates one), other jobs on
# GPUs 1-7: GPUs that were not tried are nobody's refusal.
export FAKE_NVML_DEVICE_COUNT=8 FAKE_CUDA_DEVICE_COUNT=1 FAKE_NVML_COMPUTE_MODE=3 FAKE_NVML_PROCESSES=5001 FAKE_NVML_PROCESSES_0=0
for scope in all node; do
  CUDA_VISIBLE_DEVICES=0 run_gd "subset_$scope" "${FAKE_ARGS[@]}" --json --no-capture --scope $scope
  expect_json "subset_$scope" "$gpu_ids" "[]"
done
unset FAKE_NVML_COMPUTE_MODE FAKE_NVML_PROCESSES FAKE_NVML_PROCESSES_0
# Eight GPUs in MIG mode with two MIG devices each; CUDA enumerates one MIG device.
export FAKE_NVML_MIG=1,1 FAKE_NVML_MIG_DEVICES=2
for scope in all node; do
  run_gd "mig_$scope" "${FAKE_ARGS[@]}" --json --no-capture --scope $scope
  expect_json "mig_$scope" "$gpu_ids" "[]"
done
# GPU 5 has no MIG device at all: that one is named.
FAKE_NVML_MIG_DEVICES_5=0 run_gd mig_none "${FAKE_ARGS[@]}" --json --no-capture --scope node
expect_json mig_none "$gpu_ids" "['nvml.mig-without-instances']"
expect_json mig_none '[(f["message"].count("GPU 5 ("), f["message"].count("GPU 0 (")) for f in r["findings"] if f["id"] == "nvml.mig-without-instances"]' "[(1, 0)]"
unset FAKE_NVML_DEVICE_COUNT FAKE_CUDA_DEVICE_COUNT FAKE_NVML_MIG FAKE_NVML_MIG_DEVICES

# Driver libraries that are there but cannot be loaded (issue 23): an empty libcuda.so.1 where the
# loader looks, as a file bind-mounted over it on the real H200; the loader's own words come back.
lib_ids='[f["id"] for f in r["findings"] if f["id"].split(".")[0] in ("libraries", "cuda", "nvml")]'
mkdir -p "$TMP/emptycuda" "$TMP/emptynvml"
: > "$TMP/emptycuda/libcuda.so.1"
LD_LIBRARY_PATH="$TMP/emptycuda" run_gd emptycuda
expect_rc emptycuda 1
expect_out emptycuda "^\[X\] Driver libraries: libcuda\.so\.1 → $TMP/emptycuda/libcuda\.so\.1 cannot be loaded \(empty, 0 bytes\)$"
expect_out emptycuda "^\[X\] CUDA driver \(libcuda\): libcuda\.so\.1 did not load: .*file too short$"
expect_out emptycuda "^error \[libraries\.libcuda-unloadable\]"
expect_no_out emptycuda "not on the loader's search path|driver-userspace-missing|libcuda-not-found\]"
LD_LIBRARY_PATH="$TMP/emptycuda" run_gd emptycuda_json --json --no-capture
expect_json emptycuda_json "$lib_ids" "['libraries.libcuda-unloadable']"
expect_json emptycuda_json '[f["confirmed"] for f in r["findings"] if f["id"] == "libraries.libcuda-unloadable"]' "[True]"
# A libcuda cut inside its segments: the loader maps it and the helper dies of SIGBUS in dlopen,
# which confirms the finding (and is the crash it explains).
mkdir -p "$TMP/cutcuda"
head -c 9000 "$FAKES/libcuda.so.1" > "$TMP/cutcuda/libcuda.so.1"
LD_LIBRARY_PATH="$TMP/cutcuda" run_gd cutcuda --json --no-capture
expect_json cutcuda "$lib_ids" "['libraries.libcuda-unloadable']"
expect_json cutcuda '[(f["confirmed"], f["consequences"]) for f in r["findings"] if f["id"] == "libraries.libcuda-unloadable"]' \
  "[(True, ['cuda.helper-crash'])]"
expect_fact cutcuda lib.libcuda.unloadable '"segments-cut"'
expect_fact cutcuda cuda.helper.signal '"SIGBUS"'
# An empty libnvidia-ml.so.1 beside a libcuda that works: CUDA answers, NVML's file is named.
cp "$FAKES/libcuda.so.1" "$TMP/emptynvml/libcuda.so.1"
: > "$TMP/emptynvml/libnvidia-ml.so.1"
LD_LIBRARY_PATH="$TMP/emptynvml" run_gd emptynvml --json --no-capture
expect_json emptynvml "$lib_ids" "['libraries.nvml-unloadable']"
expect_json emptynvml '[(f["severity"], f["confirmed"], "(0 bytes)" in f["message"]) for f in r["findings"] if f["id"] == "libraries.nvml-unloadable"]' \
  "[('warning', True, True)]"
expect_fact emptynvml cuda.init.result 0
LD_LIBRARY_PATH="$TMP/emptynvml" run_gd emptynvml_text
expect_out emptynvml_text "^\[!\] NVML \(libnvidia-ml\): libnvidia-ml\.so\.1 did not load: .*file too short$"
expect_no_out emptynvml_text "checks? needs? CUDA's answer"
# NVML that loads but does not initialise while CUDA works: a warning of its own.
FAKE_NVML_INIT_RESULT=999 run_gd nvml_init "${FAKE_ARGS[@]}" --json --no-capture
expect_json nvml_init "$lib_ids" "['nvml.unusable']"
expect_json nvml_init '[f["severity"] for f in r["findings"] if f["id"] == "nvml.unusable"]' "['warning']"

# NVML's start point (GPUDOCTOR_HELPER_NVML_START, bench/ only): whatever it is, NVML runs exactly
# once and is reported, also when no GPU reaches that point (cuInit fails, the context fails).
for when in context proof; do
  GPUDOCTOR_HELPER_NVML_START=$when FAKE_CUDA_DEVICE_COUNT=2 run_gd "nvml_$when" "${FAKE_ARGS[@]}" -v
  expect_out "nvml_$when" "^\[(ok|✓)\] NVML \(libnvidia-ml\): driver .*2 GPUs"
  expect_out "nvml_$when" "^  nvml\.init\.result = 0 "
  GPUDOCTOR_HELPER_NVML_START=$when FAKE_CUDA_DEVICE_COUNT=8 FAKE_CUDA_INIT_RESULT=100 run_gd "nvml_${when}_noinit" "${FAKE_ARGS[@]}"
  expect_out "nvml_${when}_noinit" "cuInit failed: 100 CUDA_ERROR_NO_DEVICE.*NVML sees 8 GPUs"
  GPUDOCTOR_HELPER_NVML_START=$when FAKE_CUDA_CONTEXT_RESULT=2 run_gd "nvml_${when}_noctx" "${FAKE_ARGS[@]}" -v
  expect_out "nvml_${when}_noctx" "^error \[cuda.context-creation-fails\]"
  expect_out "nvml_${when}_noctx" "^  nvml\.init\.result = 0 "
  expect_out "nvml_${when}_noctx" "^  nvml\.stuck = absent "
done

# On this machine (no GPU): a report, never a usage error.
run_gd thishost
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "plain run on this machine exited $rc"
expect_out thishost "NVIDIA kernel module"
finish
