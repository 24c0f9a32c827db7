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

# On this machine (no GPU): a report, never a usage error.
run_gd thishost
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "plain run on this machine exited $rc"
expect_out thishost "NVIDIA kernel module"
finish
