# Whole-binary runs on captured hosts: each must give exactly the expected findings.
source "$(dirname "$0")/lib.sh"

# host capture | exit code | finding ids in order ("-" for none)
while IFS='|' read -r host code ids; do
  [ -z "$host" ] && continue
  name=$(basename "$host" .capture.json)
  run_gd "$name" replay "$HOSTS/$host"
  expect_rc "$name" "$code"
  actual=$(grep -oE '^(error|warning|info) \[[a-z0-9._-]+\]' "$TMP/$name.out" | sed -E 's/.*\[(.*)\]/\1/' | paste -sd, -)
  checks=$((checks + 1))
  [ "${actual:--}" = "$ids" ] || fail "$name: findings '${actual:--}', expected '$ids'"
done <<'TABLE'
h200-container-580.159.04.capture.json|0|-
h200-live-580.159.04.capture.json|0|-
h200-live-cvd99.capture.json|1|cuda.visible-devices-hides-gpus
h200-live-cvd-empty.capture.json|1|cuda.visible-devices-hides-gpus
h200-live-stub-flag.capture.json|1|cuda.stub-libcuda
h200-live-stub-ldpath.capture.json|1|cuda.stub-libcuda
fake-hang.capture.json|1|cuda.init-hang
fake-crash.capture.json|1|cuda.helper-crash
fake-ctxfail.capture.json|1|cuda.context-creation-fails
fake-mismatch.capture.json|1|nvml.driver-library-mismatch
fake-eightgpus-noinit.capture.json|1|cuda.init-failed
musl-only-no-loader.capture.json|0|cuda.no-glibc-loader
h200-live-full.capture.json|0|-
h200-live-uvm-null.capture.json|1|devices.uvm-wrong-major
lxc-stale-uvm-major.capture.json|1|devices.uvm-wrong-major
blackwell-firmware-missing.capture.json|1|firmware.gsp-firmware-missing
upgrade-without-reboot.capture.json|1|driver.userspace-version-mismatch
h200-live-ml.capture.json|0|-
h200-live-kernel.capture.json|0|-
h200-live-rdma-ndr.capture.json|0|-
h200-live-rdma-port-down.capture.json|0|rdma.port-down
fake-eight-one-stuck.capture.json|1|cuda.gpu-stuck
h200-live-busy-oom.capture.json|0|cuda.gpu-busy
fake-eight-p2p.capture.json|0|-
fake-two-p2p.capture.json|0|-
TABLE

# The healthy H200 (shared/fixtures) is clean: no error, no warning; its helper predates the
# kernel proof and the GPU health checks, so the last line says that those checks lack CUDA's and
# NVML's answers.
run_gd h200 replay "$HOSTS/h200-container-580.159.04.capture.json"
expect_rc h200 0
expect_out h200 "^No problem confirmed; [0-9]+ checks need CUDA's and NVML's answers, which this run did not give, [0-9]+ other checks could not decide\.$"
expect_out h200 "GPU 0: NVIDIA H200 · sm_90"
expect_out h200 "open 580\.159\.04"
# The capture holds no kernel log and predates the kernel proof (helper protocol 1.0): the only
# undecided checks are those that read the log, the kernel proof's results or the GPU health.
checks=$((checks + 1))
undecided=$(grep -E '^  \? ' "$TMP/h200.out" | grep -v -e 'no kernel log readable' -e 'predates the kernel proof' -e 'predates the GPU health checks' || true)
[ -z "$undecided" ] || fail "h200: checks undecided for another reason than the missing kernel log: $undecided"

# The overview makes "NVML sees the GPU but cuInit fails" visible at a glance.
run_gd cvd99 replay "$HOSTS/h200-live-cvd99.capture.json"
expect_out cvd99 "cuInit failed: 100 CUDA_ERROR_NO_DEVICE.*NVML sees 1 GPU"
expect_out cvd99 'CUDA_VISIBLE_DEVICES is set to "99"'
# The LXC incident: the stale uvm major is the cause, cuInit 999 its consequence, and the fix
# names the real major from /proc/devices.
run_gd lxc replay "$HOSTS/lxc-stale-uvm-major.capture.json"
expect_out lxc "character device 509:0, but the nvidia-uvm driver has major 238"
expect_out lxc "lxc.cgroup2.devices.allow: c 238:\* rwm"
expect_out lxc "Also explains: cuda.init-failed"

# The real H200 with the parallel proof (helper protocol 1.1): every GPU proven down to a kernel
# that computed the right answer, and no check left undecided by it.
run_gd kernel replay "$HOSTS/h200-live-kernel.capture.json"
expect_out kernel "^No problems found\.$"
expect_out kernel "GPU 0: NVIDIA H200 · sm_90 · 139\.8 GiB · 0000:00:06\.0 · context \+ allocation \+ kernel OK \(JIT [0-9]+ ms\)"
expect_no_out kernel "predates the kernel proof"

# The real H200 with torch 2.11.0+cu130 in a uv venv: the ML stack is read from files, clean.
run_gd ml replay "$HOSTS/h200-live-ml.capture.json"
expect_rc ml 0
expect_out ml "^No problem confirmed; [0-9]+ checks need CUDA's and NVML's answers, which this run did not give\.$"
expect_out ml "Python / PyTorch: Python 3\.12 in /opt/torch/\.venv \(venv\); torch 2\.11\.0\+cu130 \(CUDA 13\.0\)"
# The architectures that cover libtorch_cuda.so (torch.cuda.get_arch_list() on that host) apart from
# those a few of its fat binaries add (cuobjdump --list-elf counted them on the H200).
expect_out ml "torch GPU code: sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 \(in all 444 fat binaries\); also in a few: sm_89 \(1\), sm_90a \(4\), sm_100a \(59\), sm_103a \(59\), sm_120a \(1\), sm_121a \(1\) \(read in [0-9]+ ms\)$"
expect_out ml "with .*triton 3\.6\.0"
# In the JSON report torch.sass keeps the union it always was; the coverage facts stand beside it.
run_gd mljson replay "$HOSTS/h200-live-ml.capture.json" --json -v
expect_fact mljson torch.sass '["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120", "sm_120a", "sm_121a"]'
expect_fact mljson torch.sass_covering '["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]'
expect_fact mljson torch.sass_partial '["sm_89", "sm_90a", "sm_100a", "sm_103a", "sm_120a", "sm_121a"]'
expect_fact mljson torch.fatbins_with_code 444
expect_fact mljson ml.gpus_without_torch_kernels '[]'
expect_out ml "CUDA toolkit \(nvcc\): CUDA 13\.0 at /usr/local/cuda \(via CUDA_HOME\)"

# The Alpine container (a real musl tree run in a chroot, tests/hosts/make_musl_capture.py): every
# layer is read, and the only checks left undecided are those that need the helper, which has no
# loader to run with; "exactly one finding" above holds with everything else known.
run_gd musl replay "$HOSTS/musl-only-no-loader.capture.json"
checks=$((checks + 1))
undecided=$(grep -E '^  \? ' "$TMP/musl.out" | grep -v '^  ? no glibc dynamic loader for the helper on this host (musl-only system?): ' || true)
[ -z "$undecided" ] || fail "musl: checks undecided for another reason than the missing loader: $undecided"
expect_out musl '^\[ok\] Device nodes: nvidiactl ok, nvidia-uvm ok'
expect_out musl '^\[ok\] Container / VM: docker container'
expect_out musl '^\[ok\] Kernel log: no NVIDIA driver errors'
run_gd musl_v -v replay "$HOSTS/musl-only-no-loader.capture.json"
expect_out musl_v '^  system\.libc = musl  \(/lib/ld-musl-x86_64\.so\.1\)'
expect_out musl_v '^  system\.os_id = alpine '
expect_out musl_v '^  cuda\.helper\.status = no-glibc-loader '

# A hang in cuInit still shows what NVML sees (a second, NVML-only helper run).
run_gd hang replay "$HOSTS/fake-hang.capture.json"
expect_out hang "stuck in cuInit; NVML sees 8 GPUs"
finish
