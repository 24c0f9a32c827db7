#!/usr/bin/env bash
# Issue 24 (the rest: items 2, 5, 6, 9, 10) on the real H200, one device call: the healthy report
# (text and --json), --textfile into a node_exporter-style folder, the --root walk over the real
# host (a symlink to / as the root: every read goes through the descriptor walk, openat2 or the
# O_NOFOLLOW fallback under this container's seccomp) against the live view, SIGTERM during a
# live run (no process of the helper's group left), the syslog trust fact, and five full runs'
# wall times. Nothing of the GPU's settings is changed; nothing is written into the kernel log.
# Results in $OUT/round2 (summary.txt first).
#   bash bench/device_hardening_round2.sh   (from a folder build-device/ holding gpudoctor)
set -u
D=build-device; R=$OUT/round2; mkdir -p $R /tmp/gd-bin
cp $D/gpudoctor /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor
S=$R/summary.txt; : >$S
say() { echo "$*" | tee -a $S; }
run() {  # NAME ARGS...: stdout in NAME.txt, stderr in NAME.err, exit code in NAME.exit
  local name=$1; shift
  timeout 120 "$@" >$R/$name.txt 2>$R/$name.err; echo $? >$R/$name.exit
  say "$name: exit $(cat $R/$name.exit); stderr: $(head -c 300 $R/$name.err | tr '\n' ' ')"
}
say "version: $($GD --version)"
run healthy $GD --color never
sed 's/^/  /' $R/healthy.txt | head -30 >>$S
run healthy-json $GD --json
python3 - $R/healthy-json.txt >>$S <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["facts"]
def v(k):
    x = f.get(k)
    return None if x is None else (x.get("value") if x.get("state") == "present" else x.get("state") + ": " + str(x.get("reason", "")))
print("  findings:", [x["id"] for x in r["findings"]])
for k in ["klog.source", "klog.source_trust", "klog.xid_count", "cuda.proof.every_pci_gpu", "cuda.device_count"]:
    print("  %s = %s" % (k, v(k)))
PY
run healthy-node-npd $GD --scope node --format npd
say "  npd: $(cat $R/healthy-node-npd.txt)"

TF=/tmp/gd-textfile; rm -rf $TF; mkdir -p $TF; echo old >$TF/gpudoctor.prom
run textfile $GD --textfile $TF/gpudoctor.prom
say "  textfile: $(stat -c '%F %a %s bytes' $TF/gpudoctor.prom); leftovers: '$(ls -A $TF | grep -v '^gpudoctor.prom$' | tr '\n' ' ')'"
grep -E '^gpudoctor_(up|gpus|gpu_proven|finding|run_)' $TF/gpudoctor.prom | head -12 | sed 's/^/  /' >>$S

# The walk over the real host: --root through a symlink to / is not the live root, so every
# read goes through sys/rooted_walk; its facts must equal the live --no-cuda run's.
ln -sfn / /tmp/gd-rootlink
run live-nocuda $GD --no-cuda --json --no-capture
run walk-nocuda $GD --root /tmp/gd-rootlink --no-cuda --json --no-capture
python3 - $R/live-nocuda.txt $R/walk-nocuda.txt >>$S <<'PY'
import json, sys
a, b = (json.load(open(p))["facts"] for p in sys.argv[1:3])
same = [k for k in a if k in b and a[k] == b[k]]
diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
print("  walk vs live: %d facts equal, %d differ" % (len(same), len(diff)))
for k in diff[:25]:
    print("    %s: live %s | walk %s" % (k, json.dumps(a.get(k))[:110], json.dumps(b.get(k))[:110]))
PY

# SIGTERM while the helper works: nothing of its process group may be left.
python3 - $GD >>$S <<'PY'
import os, signal, subprocess, sys, time
gd = sys.argv[1]
def defaults():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)
for delay in (0.15, 0.4):
    p = subprocess.Popen([gd, "--color", "never"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=defaults)
    time.sleep(delay)
    groups = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            st = open("/proc/%s/stat" % pid).read().rsplit(") ", 1)[1].split()
            if int(st[1]) == p.pid: groups.add(int(st[2]))  # children of gpudoctor: their pgid
        except Exception: pass
    p.send_signal(signal.SIGTERM)
    status = p.wait(timeout=10)
    time.sleep(0.1)
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            st = open("/proc/%s/stat" % pid).read().rsplit(") ", 1)[1].split()
            if int(st[2]) in groups and st[0] != "Z": left.append(pid)
        except Exception: pass
    print("  sigterm after %.2f s: gpudoctor status %s, helper groups %s, processes left %s" % (delay, status, sorted(groups), left))
PY

for i in 1 2 3 4 5; do
  s=$(date +%s%N); $GD --color never >/dev/null 2>&1; e=$(date +%s%N)
  echo $(( (e - s) / 1000000 )) >>$R/full-ms.txt
done
say "full run wall ms (5 runs): $(tr '\n' ' ' <$R/full-ms.txt); median $(sort -n $R/full-ms.txt | sed -n 3p)"
cat $S
