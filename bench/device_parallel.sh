#!/usr/bin/env bash
# One device-machine call for the parallel proof (issue 13): the healthy report, the helper's
# per-GPU kernel lines, the regressions (CUDA_VISIBLE_DEVICES=99, the toolkit's stub libcuda, an
# ordinary user), the read-only check (no ~/.nv JIT cache), and the interleaved benchmark
# against the floor program, --no-cuda, nvidia-smi and torch.cuda.init().
#   bash bench/device_parallel.sh DIR   (DIR holds gpudoctor, cuda-floor, peak_rss, interleaved.py)
set -u
D=${1:-build-device}
OUT=${OUT:-/tmp/gd-out}
mkdir -p "$OUT"
GD=/tmp/gd-bin/gpudoctor
mkdir -p /tmp/gd-bin && cp "$D"/gpudoctor "$D"/cuda-floor "$D"/peak_rss /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,name,pci.bus_id --format=csv; } >"$OUT/gpus.txt" 2>&1

# A cold first run, then the reports.
/tmp/gd-bin/cuda-floor >"$OUT/floor-cold.txt" 2>&1
$GD --color never >"$OUT/healthy.txt" 2>&1; echo "exit $?" >>"$OUT/healthy.txt"
$GD --json >"$OUT/healthy.json" 2>/dev/null
python3 - "$OUT/healthy.json" >"$OUT/reply-kernel-lines.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for run in report["capture"]["helper_runs"]:
    print("# run", run["mode"], run["status"], run["duration_ms"], "ms")
    for line in run["reply"]["lines"]:
        if line.startswith(("cuda.device.", "stage", "nvml.stage", "cuda.devices", "gpudoctor-helper", "end")):
            print(line)
facts = report["facts"]
for key in sorted(facts):
    if key.startswith(("cuda.kernel.", "cuda.devices.", "cuda.helper.")) or ".timeline" in key or ".module." in key:
        print(key, "=", facts[key].get("value", facts[key].get("state")))
PY
CUDA_VISIBLE_DEVICES=99 $GD --color never >"$OUT/cvd99.txt" 2>&1; echo "exit $?" >>"$OUT/cvd99.txt"
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda*/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1)
if [ -n "$stub" ]; then $GD --color never --libcuda "$stub" >"$OUT/stub.txt" 2>&1; echo "exit $?" >>"$OUT/stub.txt"; fi
setpriv --reuid=65534 --regid=65534 --clear-groups $GD --color never >"$OUT/unprivileged.txt" 2>&1
echo "exit $?" >>"$OUT/unprivileged.txt"

# Read-only: the proof kernel is JIT-compiled with the cache off, so no ~/.nv appears.
home=$(mktemp -d)
HOME=$home $GD --json --no-capture >/dev/null 2>&1
HOME=$home setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$home $GD >/dev/null 2>&1
{ echo "files under a fresh HOME after two runs (root and uid 65534):"; find "$home" -mindepth 1; echo "(end)"; } >"$OUT/read-only.txt"
HOME=$home /tmp/gd-bin/cuda-floor >/dev/null 2>&1; find "$home" -mindepth 1 >>"$OUT/read-only.txt"

# Memory and the host part alone.
/tmp/gd-bin/peak_rss $GD --json --no-capture >/dev/null 2>"$OUT/peak-rss.txt"
torch_python=$(ls /opt/torch/.venv/bin/python3 2>/dev/null || command -v python3)
python3 "$D"/interleaved.py 21 \
  "gpudoctor=$GD --json --no-capture" \
  "floor=/tmp/gd-bin/cuda-floor" \
  "no-cuda=$GD --no-cuda --json --no-capture" \
  "nvidia-smi=nvidia-smi" \
  "torch-init=$torch_python -c 'import torch; torch.cuda.init()'" >"$OUT/bench.txt" 2>"$OUT/bench.json"

# For the GPU health issue: what nvidia-smi says about the same GPU.
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
nvidia-smi topo -m >"$OUT/topo.txt" 2>&1
nvidia-smi nvlink -s >"$OUT/nvlink.txt" 2>&1
cat "$OUT/healthy.txt" "$OUT/bench.txt"
