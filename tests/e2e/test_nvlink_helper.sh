# NVLink through the real binary, its embedded helper and the host's loader, against the fake
# NVML's links (tests/fakes/fake_nvml_nvlink.c): no NVLink, 8 GPUs of 18 links all up, one link
# down, error counters, NOT_SUPPORTED, and Blackwell's recovery fields (issue 26 item 3).
source "$(dirname "$0")/lib.sh"

[ -f "$FAKES/libnvidia-ml.so.1" ] || { echo "SKIP: fakes not built in $FAKES"; exit 125; }
[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "SKIP: no glibc loader on this machine"; exit 125; }
FAKE_ARGS=(--libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1")
unset CUDA_VISIBLE_DEVICES LD_PRELOAD
export FAKE_CUDA_DEVICE_COUNT=8

# The fake's default is the single H200 of a VM: NVLink NOT_SUPPORTED is "no NVLink", not a finding.
FAKE_CUDA_DEVICE_COUNT=1 run_gd none "${FAKE_ARGS[@]}" -v
expect_out none "^\[(ok|✓)\] NVLink and fabric: none \(PCIe only\)"
expect_out none "nvlink\.gpus_with_links = 0"
expect_no_out none "\[nvlink\."

FAKE_NVML_NVLINK_LINKS=18 run_gd healthy "${FAKE_ARGS[@]}" -v
expect_out healthy "^\[(ok|✓)\] NVLink and fabric: 8 GPUs, 18 links each, all up \(NVLink 4\.0\)"
expect_out healthy "nvlink\.gpu\.7\.links_up = 18"
expect_out healthy "nvlink\.gpu\.0\.remote_kinds = \[NVSwitch\]"
expect_no_out healthy "\[nvlink\."

FAKE_NVML_NVLINK_LINKS=18 FAKE_NVML_NVLINK_DOWN_3=7 run_gd down "${FAKE_ARGS[@]}" -v
expect_rc down 1
expect_out down "^error \[nvlink\.link-down\]"
expect_out down "NVLink and fabric: GPU 3 link 7 down"
expect_out down "GPU 3 \(00000000:1B:00\.0\): 17 of 18 links up, link 7 down; another GPU has 18 up"

# Links unconnected on every GPU (a bridged pair's spare links) are inactive everywhere: no finding.
FAKE_NVML_NVLINK_LINKS=18 FAKE_NVML_NVLINK_DOWN=12,13,14,15,16,17 FAKE_NVML_NVLINK_REMOTE=gpu run_gd spare "${FAKE_ARGS[@]}" -v
expect_out spare "NVLink and fabric: 8 GPUs, 12 of 18 links up each \(NVLink 4\.0\)"
expect_out spare "nvlink\.gpu\.0\.remote_kinds = \[GPU\]"
expect_no_out spare "\[nvlink\.link-down\]"

FAKE_NVML_NVLINK_LINKS=18 FAKE_NVML_NVLINK_ERRORS_0_2=12,0,4,0 run_gd errors "${FAKE_ARGS[@]}" -v
expect_out errors "nvlink\.error_links = \[GPU 0 \(00000000:18:00\.0\) link 2: 12 replay, 4 CRC flit"
expect_out errors "nvlink\.gpu\.0\.replay_errors = 12"
expect_out errors "NVLink and fabric: 8 GPUs, 18 links each, all up \(NVLink 4\.0\); 1 link with errors"

FAKE_NVML_NVLINK_LINKS=18 FAKE_NVML_NOT_SUPPORTED=nvmlDeviceGetNvLinkState run_gd unsupported "${FAKE_ARGS[@]}" -v
expect_out unsupported "NVLink and fabric: 8 GPUs, 18 links each, none up|NVLink and fabric: none \(PCIe only\)"
expect_no_out unsupported "\[nvlink\."

# Blackwell: no replay/recovery/CRC counters; the failed link recoveries count instead.
FAKE_NVML_NVLINK_LINKS=18 FAKE_NVML_NVLINK_VERSION=7 FAKE_NVML_NVLINK_NO_COUNTERS=1 FAKE_NVML_NVLINK_RECOVERY_5=2,9 \
  run_gd blackwell "${FAKE_ARGS[@]}" -v
expect_out blackwell "all up \(NVLink 5\.0\)"
expect_out blackwell "GPU 5 \(00000000:1D:00\.0\) link 0: 2 failed recoveries"

finish
