#!/usr/bin/env bash
# Session 12 on the device machine (issue 27 item 2): `gpudoctor fleet` over 10,000 reports on
# the machine's idle cores, 2 of them (`taskset`: two threads of distinct physical cores, and the
# two hyperthreads of one core when the machine has them) and 16, against the previous binary
# (OLD, build-device/old-gpudoctor) in the same loop; then the binary's own check of the GPU
# (clean, exit 0). Needs build-device/{gpudoctor,old-gpudoctor,fleet-base.json} (carry
# build-device). Writes under $OUT.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
bin=build-device/gpudoctor
{
  echo "jq: $(command -v jq || echo none); GNU time: $(ls /usr/bin/time 2>/dev/null || echo none)"
  nproc
  lscpu | grep -E "Model name|Thread|Core|Socket|MHz" || true
  for c in 0 1 2; do echo "cpu$c siblings: $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null)"; done
} >"$out/env.txt" 2>&1
# The GPU: the binary's check, as a user runs it.
"$bin" --json >"$out/healthy.json" 2>"$out/healthy.err"
echo "exit $?" >"$out/healthy.rc"
"$bin" >"$out/healthy.txt" 2>&1
# The review's helper and probe changes (one emit_cu_call, peer_scope, the all-zero cluster UUID):
# the reply as the helper writes it, and the run with --p2p-bandwidth.
"$bin" --p2p-bandwidth -v >"$out/p2p-bandwidth.txt" 2>&1
echo "exit $?" >>"$out/p2p-bandwidth.txt"
build-device/gpudoctor-cuda-helper --reply-fd 3 --deadline-ms 5000 --p2p-bandwidth on 3>"$out/helper-reply.txt" >/dev/null 2>&1
echo "helper exit $?" >>"$out/helper-reply.txt"
# Two cores: cpu0 and the first cpu that is not its hyperthread sibling.
siblings=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null || echo 0)
other=1
for c in $(seq 1 $(($(nproc) - 1))); do
  case ",$(echo "$siblings" | tr '-' ',')," in *",$c,"*) continue ;; esac
  other=$c; break
done
echo "2 cores: cpu0 and cpu$other (cpu0's siblings: $siblings)" >>"$out/env.txt"
export BASE=build-device/fleet-base.json
taskset -c "0,$other" env JOBS="1 2" OLD=build-device/old-gpudoctor JQ=0 \
  bash bench/fleet_speed.sh "$bin" 3 10000 >"$out/fleet-2cores-10000.txt" 2>&1
taskset -c "0,$other" env JOBS="default" bash bench/fleet_speed.sh "$bin" 3 1000 >"$out/fleet-2cores-1000.txt" 2>&1
case "$siblings" in
  *,*|*-*)
    taskset -c "$siblings" env JOBS="1 2" JQ=0 bash bench/fleet_speed.sh "$bin" 3 10000 >"$out/fleet-2hyperthreads-10000.txt" 2>&1 ;;
esac
env JOBS="4 default" JQ=0 bash bench/fleet_speed.sh "$bin" 3 10000 >"$out/fleet-16cores-10000.txt" 2>&1
