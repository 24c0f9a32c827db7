#!/usr/bin/env bash
# One device-machine call for the parallel proof and the GPU health (issues 13, 14): the healthy
# report (with and without --check-inforom), the regressions (CUDA_VISIBLE_DEVICES=99, the
# toolkit's stub libcuda, an ordinary user), the read-only check (no ~/.nv JIT cache), peak RSS,
# the interleaved benchmark against the floor program, --no-cuda, nvidia-smi and
# torch.cuda.init(), and each NVML health fact next to nvidia-smi -q. Everything lands in
# $OUT/results.tgz (the device tool brings back only a few files).
#   bash bench/device_parallel.sh   (from a folder build-device/ holding gpudoctor, cuda-floor,
#                                    peak_rss and interleaved.py)
set -u
D=build-device; R=$OUT/r; mkdir -p $R /tmp/gd-bin
cp $D/gpudoctor $D/cuda-floor $D/peak_rss /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor
/tmp/gd-bin/cuda-floor > $R/floor-cold.txt 2>&1
$GD --color never > $R/healthy.txt 2>&1; echo "exit $?" >> $R/healthy.txt
$GD --json > $R/healthy.json 2>/dev/null
$GD --json --check-inforom --no-capture > $R/healthy-inforom.json 2>/dev/null
nvidia-smi -q > $R/nvidia-smi-q.txt 2>&1
CUDA_VISIBLE_DEVICES=99 $GD --color never > $R/cvd99.txt 2>&1; echo "exit $?" >> $R/cvd99.txt
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so 2>/dev/null | head -1)
[ -n "$stub" ] && { $GD --color never --libcuda "$stub" > $R/stub.txt 2>&1; echo "exit $?" >> $R/stub.txt; }
setpriv --reuid=65534 --regid=65534 --clear-groups $GD --color never > $R/unprivileged.txt 2>&1; echo "exit $?" >> $R/unprivileged.txt
home=$(mktemp -d); chmod 777 $home
HOME=$home $GD --json --no-capture >/dev/null 2>&1
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$home $GD >/dev/null 2>&1
{ echo "files under a fresh HOME after a root and a uid-65534 run:"; find "$home" -mindepth 1; echo "(end)"; } > $R/read-only.txt
{ echo "peak RSS KiB, wall ms: full run; --no-cuda"; /tmp/gd-bin/peak_rss $GD --json --no-capture; /tmp/gd-bin/peak_rss $GD --no-cuda --json --no-capture; } > $R/peak-rss.txt 2>&1
# What ran before a process changes its cuInit by up to 90 ms (a context still being torn down, a
# torch process that exited 600 ms earlier): gpudoctor and the floor swap places every other round.
python3 $D/interleaved.py --settle-ms 300 --swap gpudoctor,floor 21 "gpudoctor=$GD --json --no-capture" \
  "floor=/tmp/gd-bin/cuda-floor" "no-cuda=$GD --no-cuda --json --no-capture" "nvidia-smi=nvidia-smi" \
  "torch-init=/opt/torch/.venv/bin/python3 -c 'import torch; torch.cuda.init()'" > $R/bench.txt 2>/dev/null
python3 - $R/healthy.json $R/nvidia-smi-q.txt > $R/health-vs-smi.txt <<'PY'
import json, re, sys
facts = json.load(open(sys.argv[1]))["facts"]
smi = open(sys.argv[2]).read()
def f(name):
    fact = facts.get(name, {})
    return fact.get("value", fact.get("state", "-") + (" (" + fact.get("reason", "") + ")" if fact.get("reason") else ""))
def s(pattern):
    m = re.search(pattern, smi, re.S)
    return m.group(1).strip() if m else "-"
rows = [
  ("ECC mode current / pending", f"{f('nvml.device.0.ecc.enabled')} / {f('nvml.device.0.ecc.pending_enabled')}", s(r"ECC Mode\s+Current\s+:\s*(\S+)") + " / " + s(r"ECC Mode\s+Current\s+:\s*\S+\s+Pending\s+:\s*(\S+)")),
  ("uncorrected ECC volatile / aggregate", f"{f('nvml.device.0.ecc.uncorrected_volatile')} / {f('nvml.device.0.ecc.uncorrected_aggregate')}", "DRAM " + s(r"Volatile.*?DRAM Uncorrectable\s+:\s*(\d+)") + " / " + s(r"Aggregate.*?DRAM Uncorrectable\s+:\s*(\d+)")),
  ("remapped rows corr / unc", f"{f('nvml.device.0.remap.correctable')} / {f('nvml.device.0.remap.uncorrectable')}", s(r"Remapped Rows\s+Correctable Error\s+:\s*(\d+)") + " / " + s(r"Remapped Rows.*?\n\s+Uncorrectable Error\s+:\s*(\d+)")),
  ("remap pending / failure", f"{f('nvml.device.0.remap.pending')} / {f('nvml.device.0.remap.failure')}", s(r"Remapped Rows.*?Pending\s+:\s*(\S+)") + " / " + s(r"Remapping Failure Occurred\s+:\s*(\S+)")),
  ("banks without spare rows", f"{f('nvml.device.0.remap.banks_without_spare_rows')}", s(r"Histogram.*?None\s+:\s*(\d+)")),
  ("retired pages pending", f"{f('nvml.device.0.retired.pending')}", s(r"Pending Page Blacklist\s+:\s*(\S+)")),
  ("recovery action", f"{f('nvml.device.0.recovery_action')}", s(r"GPU Recovery Action\s+:\s*(\S+)")),
  ("persistence", f"{f('nvml.device.0.persistence')}", s(r"Persistence Mode\s+:\s*(\S+)")),
  ("compute mode", f"{f('nvml.device.0.compute_mode')}", s(r"Compute Mode\s+:\s*(\S+)")),
  ("MIG current / pending", f"{f('nvml.device.0.mig.enabled')} / {f('nvml.device.0.mig.pending_enabled')}", s(r"MIG Mode\s+Current\s+:\s*(\S+)") + " / " + s(r"MIG Mode\s+Current\s+:\s*\S+\s+Pending\s+:\s*(\S+)")),
  ("PCIe gen current / max", f"{f('nvml.device.0.pcie.gen')} / {f('nvml.device.0.pcie.gen_max')}", s(r"PCIe Generation\s+Max\s+:\s*(\d+)") + " (max), " + s(r"PCIe Generation\s+Max\s+:\s*\d+\s+Current\s+:\s*(\d+)") + " (current)"),
  ("PCIe width current / max", f"{f('nvml.device.0.pcie.width')} / {f('nvml.device.0.pcie.width_max')}", s(r"Link Width\s+Max\s+:\s*(\S+)") + " (max), " + s(r"Link Width\s+Max\s+:\s*\S+\s+Current\s+:\s*(\S+)") + " (current)"),
  ("performance state", f"{f('nvml.device.0.pstate')}", s(r"Performance State\s+:\s*(\S+)")),
  ("clock event reasons", f"{f('nvml.device.0.clocks_event_reasons')}", "idle " + s(r"Clocks Event Reasons\s+Idle\s+:\s*(\S+ ?\S*)") + ", HW slowdown " + s(r"HW Slowdown\s+:\s*(\S+ ?\S*)")),
  ("fabric state", f"{f('nvml.device.0.fabric.state')}", s(r"Fabric\s+State\s+:\s*(\S+)")),
  ("display active", f"{f('nvml.device.0.display_active')}", s(r"Display Active\s+:\s*(\S+)")),
  ("compute processes", f"{f('nvml.device.0.processes')}", s(r"Processes\s+:\s*(\S+)")),
]
print("| fact | gpudoctor (NVML via the helper) | nvidia-smi -q |")
print("|---|---|---|")
for name, ours, theirs in rows:
    print(f"| {name} | {ours} | {theirs} |")
inf = json.load(open(sys.argv[1].replace("healthy.json", "healthy-inforom.json")))["facts"]
print("\n--check-inforom: nvml.device.0.inforom_valid =", inf.get("nvml.device.0.inforom_valid"))
print("NVML health sums with findings:", [k for k, v in facts.items() if k.startswith("nvml.health.") and v.get("value") not in ([], None) and not k.endswith("_gpus")])
for run in json.load(open(sys.argv[1]))["capture"]["helper_runs"]:
    print("\nhelper timeline (", run["mode"], run["duration_ms"], "ms ):")
    for line in run["reply"]["lines"]:
        if "stage" in line: print("  " + line)
PY
tar -czf $OUT/results.tgz -C $R .
cat $R/healthy.txt $R/bench.txt $R/health-vs-smi.txt $R/peak-rss.txt $R/read-only.txt
