#!/usr/bin/env bash
# The final device-machine call of session 11: the merged binary on the real GPU host.
#  - the healthy report (text, JSON, metrics), as root and as uid 65534, and the lines of what
#    this session added: --p2p-bandwidth with one GPU ("no peers", nothing measured), the helper's
#    1.4 reply (fabric lines), NCCL's configuration file (/etc/nccl.conf naming an interface this
#    container lacks: nccl.socket-ifname-not-found, set there), the Fabric Manager facts;
#  - the incident scenarios of earlier sessions (bench/device_scenarios.sh);
#  - the whole run against the floor and the binary of session 10's end (43eba5b5), interleaved,
#    with and without --p2p-bandwidth.
# The container is not changed: /etc/nccl.conf is shown in a private mount namespace.
# Everything lands in $OUT/results.tgz.
#   bash bench/device_session11_final.sh   (from a folder build-device/ holding gpudoctor,
#                                           old-gpudoctor, cuda-floor, peak_rss, gpudoctor-cuda-helper)
set -u
D=${D:-build-device}; R=$OUT/r; mkdir -p "$R" /tmp/gd-bin
cp "$D"/* /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor; OLD=/tmp/gd-bin/old-gpudoctor
NEW='Peer-to-peer|NCCL|NVLink|RDMA|IOMMU|Environment'
NEW_FACTS='^  (p2p\.|nvlink\.|env\.nccl|nccl\.|service\.|fabric|nvml\.device\.0\.fabric|rdma\.)'
nvidia-smi -L >"$R/host.txt" 2>&1
$GD --color never >"$R/healthy.txt" 2>&1; echo "exit $?" >>"$R/healthy.txt"
$GD --json >"$R/healthy.json" 2>/dev/null
$GD --format prometheus >"$R/metrics.prom" 2>&1
$GD -v --color never 2>&1 | grep -E "$NEW_FACTS" >"$R/new-facts.txt"
setpriv --reuid=65534 --regid=65534 --clear-groups "$GD" -v --color never >"$R/unprivileged.txt" 2>&1
echo "exit $?" >>"$R/unprivileged.txt"
{
  echo "=== --p2p-bandwidth, one GPU"; $GD --p2p-bandwidth --color never >"$R/bandwidth.txt" 2>&1; echo "exit $?"
  grep -E "$NEW" "$R/bandwidth.txt"; echo "bandwidth facts: $($GD --p2p-bandwidth -v 2>&1 | grep -ci bandwidth)"
  echo "=== the helper alone, --p2p-bandwidth on"
  /tmp/gd-bin/gpudoctor-cuda-helper --reply-fd 3 --deadline-ms 5000 --p2p-bandwidth on 3>"$R/helper-reply.txt" >/dev/null 2>&1
  head -1 "$R/helper-reply.txt"; echo "peer lines: $(grep -c '^cuda.peer' "$R/helper-reply.txt")"; grep -i fabric "$R/helper-reply.txt"
  echo "=== the new lines, root"; grep -E "$NEW" "$R/healthy.txt"
  echo "=== uid 65534"; grep -E "$NEW" "$R/unprivileged.txt"; tail -3 "$R/unprivileged.txt"
  echo "=== /etc/nccl.conf naming an interface this container lacks (a copy of /etc in a private mount namespace)"
  rm -rf /tmp/etc-copy && cp -a /etc /tmp/etc-copy && printf '# bench/device_session11_final.sh\nNCCL_SOCKET_IFNAME==ib9\n' >/tmp/etc-copy/nccl.conf
  unshare -m bash -c "mount --bind /tmp/etc-copy /etc && $GD --color never" 2>&1 | grep -E -A3 'NCCL|nccl\.'; echo "exit ${PIPESTATUS[0]}"
  echo "=== the same variable in the environment wins over the file"
  printf 'NCCL_SOCKET_IFNAME==ib9\n' >/tmp/user-nccl.conf
  NCCL_CONF_FILE=/tmp/user-nccl.conf NCCL_SOCKET_IFNAME=$(ls /sys/class/net | grep -v '^lo$' | head -1) $GD --color never 2>&1 | grep -E 'NCCL'
  echo "=== --scope node --format npd"; $GD --scope node --format npd; echo "exit $?"
} >"$R/new-lines.txt" 2>&1
OUT=/tmp/scen bash bench/device_scenarios.sh "$GD" >/dev/null 2>&1
tar -czf "$R/scenarios.tar.gz" -C /tmp/scen .
for n in healthy cvd99 stub-flag uvm-null nobody; do echo "=== $n"; cat /tmp/scen/$n.txt; done >"$R/scenarios.txt" 2>&1
{ echo "peak RSS KiB, wall ms: full run; --no-cuda"; /tmp/gd-bin/peak_rss $GD --json --no-capture
  /tmp/gd-bin/peak_rss $GD --no-cuda --json --no-capture; } >"$R/peak-rss.txt" 2>&1
python3 bench/interleaved.py --settle-ms 300 --swap gpudoctor,floor ${ROUNDS:-31} \
  "gpudoctor=$GD --json --no-capture" "floor=/tmp/gd-bin/cuda-floor" "old=$OLD --json --no-capture" \
  "bandwidth=$GD --json --no-capture --p2p-bandwidth" "version=$GD --version" \
  "no-cuda=$GD --no-cuda --json --no-capture" >"$R/bench.txt" 2>"$R/bench-medians.json"
cat "$R/new-lines.txt" "$R/bench.txt"
tar -czf "$OUT/results.tgz" -C "$R" .
