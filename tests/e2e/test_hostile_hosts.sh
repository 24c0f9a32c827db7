# Hostile hosts (--root on temporary trees): whatever the files are, gpudoctor finishes within
# a bound, does not crash, stays within bounded memory, and says what it could not read. In the
# sanitizer build (build-sanitize/, ctest sets GD_SANITIZED=1) any ASan, LeakSanitizer or UBSan
# report fails the case: lib.sh gives the sanitizers their own exit code and looks for the report.
source "$(dirname "$0")/lib.sh"

limit_s=20
max_rss_kib=$((256 * 1024))
have_time=$(command -v /usr/bin/time || true)
[ -n "$have_time" ] || skip "the memory bound of every case: no /usr/bin/time (GNU time) to measure peak memory"

survives() {  # NAME ARGS...: runs under a timeout; exit 0 or 1 with a report, no crash, no sanitizer report, memory bounded
  local name=$1; shift
  if [ -n "$have_time" ]; then
    timeout "$limit_s" /usr/bin/time -f '%M' -o "$TMP/$name.rss" "$GD" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  else
    timeout "$limit_s" "$GD" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  fi
  rc=$?
  checks=$((checks + 1))
  case $rc in
    0 | 1) ;;
    124) fail "$name: still running after ${limit_s}s" ;;
    *) fail "$name: exit $rc: $(head -3 "$TMP/$name.err")" ;;
  esac
  sanitizer_clean "$name"
  checks=$((checks + 1))
  ! grep -qiE 'internal error|terminate called|Segmentation|Aborted' "$TMP/$name.err" || fail "$name: $(head -3 "$TMP/$name.err")"
  # Exit 0 or 1 means a finished report: its last line (text) or the JSON object's end.
  checks=$((checks + 1))
  grep -qE '^(Found [0-9]+ errors? and [0-9]+ warnings?|No problems found|No problem confirmed;)|^\}$' "$TMP/$name.out" ||
    fail "$name: exit $rc without a finished report: $(tail -c 300 "$TMP/$name.out")"
  if [ -n "$have_time" ]; then
    checks=$((checks + 1))
    local rss
    rss=$(tail -n 1 "$TMP/$name.rss" 2>/dev/null)
    [[ "$rss" =~ ^[0-9]+$ ]] || fail "$name: /usr/bin/time wrote no peak memory: '$rss'"
    [[ "$rss" =~ ^[0-9]+$ ]] && { [ "$rss" -le "$max_rss_kib" ] || fail "$name: peak memory $rss KiB"; }
  fi
}

# The files gpudoctor reads on a GPU host, under a fresh root.
skeleton() {
  local t=$1
  mkdir -p "$t/proc/driver/nvidia/gpus/0000:00:06.0" "$t/sys/bus/pci/devices/0000:00:06.0" "$t/dev" "$t/etc/ld.so.conf.d" \
    "$t/usr/lib/x86_64-linux-gnu" "$t/opt/venv/bin" "$t/opt/venv/lib/python3.12/site-packages/torch/lib" "$t/lib/firmware/nvidia" \
    "$t/usr/local/cuda/bin"
  echo "$t"
}
files() {  # every text file the probes read
  echo proc/driver/nvidia/version proc/driver/nvidia/params proc/driver/nvidia/gpus/0000:00:06.0/information \
    proc/modules proc/devices proc/cpuinfo proc/self/cgroup proc/self/mountinfo proc/1/cgroup proc/version \
    sys/bus/pci/devices/0000:00:06.0/vendor sys/bus/pci/devices/0000:00:06.0/device sys/bus/pci/devices/0000:00:06.0/class \
    etc/ld.so.cache etc/ld.so.conf etc/os-release etc/passwd opt/venv/pyvenv.cfg \
    opt/venv/lib/python3.12/site-packages/torch/version.py opt/venv/lib/python3.12/site-packages/torch/__init__.py \
    opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so usr/local/cuda/version.json
}

# 1. Binary garbage and invalid UTF-8 in every file.
t=$(skeleton "$TMP/garbage")
for f in $(files); do
  mkdir -p "$(dirname "$t/$f")"
  head -c 4096 /dev/urandom >"$t/$f"
  printf '\xff\xfe\xc3\x28 NVRM: Xid \x80\n' >>"$t/$f"
done
mkdir -p "$t/opt/venv/lib/python3.12/site-packages/torch-2.11.0.dist-info"
head -c 65536 /dev/urandom >"$t/opt/venv/lib/python3.12/site-packages/torch-2.11.0.dist-info/METADATA"
ln -sf /opt/venv/bin/python3.12 "$t/opt/venv/bin/python3"; : >"$t/opt/venv/bin/python3.12"
survives garbage --root "$t" --python /opt/venv/bin/python3
survives garbage_json --root "$t" --json
checks=$((checks + 1))
grep -q '"schema_version"' "$TMP/garbage_json.out" || fail "garbage_json: no JSON report"

# 2. A FIFO where /proc/driver/nvidia/version should be, and FIFOs for other files.
t=$(skeleton "$TMP/fifo")
mkfifo "$t/proc/driver/nvidia/version" "$t/proc/modules" "$t/etc/ld.so.cache" "$t/dev/nvidia-uvm"
survives fifo --root "$t"
expect_out fifo 'kernel module'

# 3. Symbolic link loops in /dev and in site-packages.
t=$(skeleton "$TMP/loops")
ln -s nvidia-uvm-b "$t/dev/nvidia-uvm"; ln -s nvidia-uvm "$t/dev/nvidia-uvm-b"
ln -s loop "$t/opt/venv/lib/python3.12/site-packages/loop"
ln -s ../site-packages "$t/opt/venv/lib/python3.12/site-packages/torch/lib/up"
ln -s self "$t/usr/lib/x86_64-linux-gnu/self"; ln -s ../x86_64-linux-gnu/self "$t/usr/lib/x86_64-linux-gnu/libcuda.so.1"
printf 'home = /usr/bin\nversion = 3.12.3\n' >"$t/opt/venv/pyvenv.cfg"; ln -sf python3 "$t/opt/venv/bin/python3"
survives loops --root "$t" --python /opt/venv
survives loops_json --root "$t" --json

# 4. 2 GB sparse files where small ones are expected, and a huge "libtorch_cuda.so".
t=$(skeleton "$TMP/sparse")
for f in proc/driver/nvidia/version proc/devices etc/ld.so.cache etc/os-release opt/venv/lib/python3.12/site-packages/torch/version.py \
  opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so; do
  truncate -s 2G "$t/$f"
done
survives sparse --root "$t" --python /opt/venv --json

# 5. A library path of ten thousand entries, and a PATH as long.
t=$(skeleton "$TMP/paths")
long=$(seq -f "/opt/lib%g" 1 10000 | paste -sd:)
LD_LIBRARY_PATH=$long PATH=$long:/usr/bin survives paths --root "$t"

# 6. Unreadable folders, as an ordinary user (root reads everything).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  skip "case 6 (unreadable folders as an ordinary user): needs root and setpriv to become uid 65534"
else
  t=$(skeleton "$TMP/closed")
  printf 'Character devices:\n195 nvidia\n' >"$t/proc/devices"
  chmod 000 "$t/proc/driver/nvidia" "$t/etc/ld.so.conf.d" "$t/opt/venv/lib" "$t/sys/bus/pci/devices"
  chmod 755 "$TMP"
  cp "$GD" "$TMP/gd-copy" && chmod 755 "$TMP/gd-copy"
  printf '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups %s "$@"\n' "$TMP/gd-copy" >"$TMP/as-nobody"
  chmod 755 "$TMP/as-nobody"
  GD_SAVED=$GD; GD=$TMP/as-nobody
  survives closed --root "$t" -v --python /opt/venv
  GD=$GD_SAVED
  expect_out closed 'needs root|EACCES'
fi

# 8. PCI config space of the bridges between two GPUs (the iommu layer reads their ACS capability):
# a capability list that loops, random bytes, a 2 GB sparse file, five bytes; device links that loop.
t=$(skeleton "$TMP/acs")
rm -rf "$t/sys/bus/pci/devices/0000:00:06.0"
mkdir -p "$t/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0" \
  "$t/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0" "$t/sys/class/iommu/dmar0"
for gpu in 0000:01:00.0/0000:02:00.0/0000:03:00.0 0000:01:00.0/0000:02:01.0/0000:04:00.0; do
  d="$t/sys/devices/pci0000:00/0000:00:01.0/$gpu"
  printf '0x10de\n' >"$d/vendor"; printf '0x2335\n' >"$d/device"; printf '0x030200\n' >"$d/class"
  ln -s "../../../devices/pci0000:00/0000:00:01.0/$gpu" "$t/sys/bus/pci/devices/${gpu##*/}"
  ln -s iommu_group "$d/iommu_group"  # a link to itself
done
for b in 0000:00:01.0 0000:01:00.0 0000:02:00.0 0000:02:01.0; do
  ln -s "../../../devices/pci0000:00/$(echo "$b" | sed 's|0000:01:00.0|0000:00:01.0/0000:01:00.0|; s|0000:02:0\(.\).0|0000:00:01.0/0000:01:00.0/0000:02:0\1.0|')" \
    "$t/sys/bus/pci/devices/$b"
done
dev="$t/sys/devices/pci0000:00/0000:00:01.0"
truncate -s 2G "$dev/config"  # the root port is above both GPUs' switch: not between them, not read
head -c 4096 /dev/urandom >"$dev/0000:01:00.0/config"
loop="$dev/0000:01:00.0/0000:02:00.0/config"  # an extended capability at 0x100 whose next is 0x100
head -c 256 /dev/zero >"$loop"; printf '\x03\x00\x01\x10' >>"$loop"; head -c 3836 /dev/zero >>"$loop"
printf 'short' >"$dev/0000:01:00.0/0000:02:01.0/config"
survives acs --root "$t" --json
checks=$((checks + 1))
grep -q 'capability list does not end' "$TMP/acs.out" || fail "acs: the looping capability list is not named: $(grep -o '"acs.unreadable_bridges"[^]]*' "$TMP/acs.out" | head -c 600)"
checks=$((checks + 1))
grep -q '0000:02:01.0/config holds 5 bytes' "$TMP/acs.out" || fail "acs: the five-byte config file is not named"

# 7. A truncated and a hand-edited capture are refused with a message naming the file.
run_gd full --root "$TMP/fifo" --json
expect_rc full 0
expect_out full '"capture": \{'
cp "$TMP/full.out" "$TMP/full.json"
head -c 3000 "$TMP/full.json" >"$TMP/truncated.json"
run_gd truncated replay "$TMP/truncated.json"
expect_rc truncated 2
expect_err truncated 'truncated.json'
sed 's/"version": 1/"version": 99/' "$TMP/full.json" >"$TMP/edited.json"
run_gd edited replay "$TMP/edited.json"
expect_rc edited 2
expect_err edited 'edited.json'
finish
