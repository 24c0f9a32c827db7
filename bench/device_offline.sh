#!/usr/bin/env bash
# One device-machine call for the offline answers and the pre-flight (issue 18), and the GPU-code
# coverage of torch's fat binaries (issue 18.5), on the real H200 (driver 580.159.04, torch
# 2.11.0+cu130 in /opt/torch/.venv). Everything lands in $OUT/r.
#   bash bench/device_offline.sh   (from a folder build-device/ holding gpudoctor)
set -u
D=build-device; R=$OUT/r; mkdir -p $R /tmp/gd-bin
cp $D/gpudoctor /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor
run() {  # NAME ARGS...: the text report and its exit code
  local name=$1; shift
  "$@" > $R/$name.txt 2>&1; echo "exit $?" >> $R/$name.txt
}
# The real host: clean, and its last line says so; --no-cuda says what was not checked.
run healthy $GD --color never
$GD --json --no-capture > $R/healthy.json 2>/dev/null
run no-cuda $GD --color never --no-cuda
# The issue's case: a /proc/driver/nvidia/version of 570.86.15 bind-mounted over the real one
# while CUDA, the context and NVML all work: no error may survive CUDA's success.
sed 's/580\.159\.04/570.86.15/g' /proc/driver/nvidia/version > /tmp/fake-version
run version-570-bound unshare -m sh -c "mount --bind /tmp/fake-version /proc/driver/nvidia/version && $GD --color never"
# The same with --no-cuda: what the files suggest is reported, unconfirmed.
run version-570-bound-no-cuda unshare -m sh -c "mount --bind /tmp/fake-version /proc/driver/nvidia/version && $GD --color never --no-cuda"
# /dev/nvidia-uvm replaced by /dev/null, without CUDA: reported, not confirmed.
run uvm-null-no-cuda unshare -m sh -c "mount --bind /dev/null /dev/nvidia-uvm && $GD --color never --no-cuda"
# --root of this machine's own tree, recursively bound (with /proc and /dev): the nodes are not
# opened; and bound alone (no /proc, /sys, /dev: a mounted filesystem).
mkdir -p /mnt/gd-rbind /mnt/gd-bind
run root-rbind unshare -m sh -c "mount --rbind / /mnt/gd-rbind && $GD --color never --root /mnt/gd-rbind"
run root-bind unshare -m sh -c "mount --bind / /mnt/gd-bind && $GD --color never --root /mnt/gd-bind"
# Pre-flight of this container's own tree (torch 2.11.0+cu130) for this host, for an RTX PRO 6000
# on 570.86.15 (CUDA 12.8: torch's CUDA 13.0 is above it), and for a V100 (sm_70, not in cu130).
# The image's variables: a runtime configuration with this container's PATH (its venv first).
printf '{"process": {"env": ["PATH=%s", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"]}}\n' "$PATH" > /tmp/image-config.json
pre() { unshare -m sh -c "mount --bind / /mnt/gd-bind && $GD --color never --root /mnt/gd-bind --image-config /tmp/image-config.json $*"; }
run preflight-h200 pre --target-gpu 10de:2335 --target-driver 580.159.04
run preflight-rtxpro-570 pre --target-gpu "'RTX PRO 6000'" --target-driver 570.86.15
run preflight-v100 pre --target-gpu V100 --target-driver 580.159.04
run preflight-no-config unshare -m sh -c "mount --bind / /mnt/gd-bind && $GD --color never --root /mnt/gd-bind --target-gpu H200 --target-driver 580.159.04"
# Coverage: what torch itself claims, next to gpudoctor's facts.
/opt/torch/.venv/bin/python3 -c 'import torch; print(torch.cuda.get_arch_list())' > $R/torch-arch-list.txt 2>&1
python3 - $R/healthy.json > $R/gpu-code-facts.txt <<'PY'
import json, sys
facts = json.load(open(sys.argv[1]))["facts"]
for name in sorted(facts):
    if name.startswith(("torch.sass", "torch.ptx", "torch.gpu_code", "torch.arch", "ml.gpus_without", "cuda.proof")):
        print(name, "=", facts[name].get("value", facts[name].get("state")))
PY
ls -la $R
