#!/usr/bin/env bash
# One device-machine call for issue 23 (shared nodes) on the real H200: the healthy host, a torch
# job holding all of the GPU's memory, a torch job holding 120 GB while it multiplies matrices.
# Nothing of the GPU's settings is changed (no compute-mode or MIG changes). Results in $OUT/shared.
#   bash bench/device_shared_node.sh   (from a folder build-device/ holding gpudoctor)
set -u
D=build-device; R=$OUT/shared; mkdir -p $R /tmp/gd-bin
cp $D/gpudoctor /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor
PY=/opt/torch/.venv/bin/python3; [ -x $PY ] || PY=python3
run() {  # NAME ARGS...: output and exit code
  local name=$1; shift
  timeout 90 "$@" > $R/$name.txt 2>&1; echo "exit $?" >> $R/$name.txt
}
all_views() {  # PREFIX: the text report, JSON with the capture, the health check's npd line, metrics
  run $1-text $GD --color never
  timeout 90 $GD --json > $R/$1.json 2>/dev/null; echo "exit $?" > $R/$1.json.exit
  run $1-node-npd $GD --scope node --format npd
  run $1-node-text $GD --color never --scope node
  run $1-prometheus $GD --format prometheus
}
all_views healthy

# A job that holds every byte it can get (TensorFlow's default, JAX's preallocation, a caching
# allocator at its peak), and keeps it until killed.
hold() {  # READY-FILE GIB-OR-all KERNELS(0/1): starts the job in the background as $holder
  $PY - "$@" > "$1.log" 2>&1 <<'PYEOF' &
import sys, time, torch
ready, amount, kernels = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
blocks = []
if amount == "all":
    chunk = 1 << 30
    while True:
        try:
            blocks.append(torch.empty(chunk, dtype=torch.uint8, device="cuda"))
        except RuntimeError:
            if chunk <= 1 << 20:
                break
            chunk //= 2
else:
    blocks.append(torch.empty(int(amount) << 30, dtype=torch.uint8, device="cuda"))
free, total = torch.cuda.mem_get_info()
print(f"holding {torch.cuda.memory_allocated() >> 20} MiB, free {free >> 20} of {total >> 20} MiB", flush=True)
a = torch.randn(8192, 8192, device="cuda") if kernels else None
open(ready, "w").write("1")
end = time.time() + 120
while time.time() < end:
    if kernels:
        a = a @ a
        a = a / a.norm()
        torch.cuda.synchronize()
    else:
        time.sleep(0.2)
PYEOF
  holder=$!
}
wait_ready() { for _ in $(seq 1 600); do [ -f "$1" ] && return 0; sleep 0.1; done; return 1; }

rm -f /tmp/full.ready; hold /tmp/full.ready all 0
wait_ready /tmp/full.ready && echo ready > $R/full-holder.txt; cat /tmp/full.ready.log >> $R/full-holder.txt
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >> $R/full-holder.txt 2>&1
all_views full
kill $holder; wait $holder 2>/dev/null

rm -f /tmp/part.ready; hold /tmp/part.ready 120 1
wait_ready /tmp/part.ready && echo ready > $R/part-holder.txt; cat /tmp/part.ready.log >> $R/part-holder.txt
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >> $R/part-holder.txt 2>&1
all_views part120
kill $holder; wait $holder 2>/dev/null

all_views healthy-after
ls -la $R
