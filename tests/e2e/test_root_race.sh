# A --root tree whose /etc is swapped, over and over while gpudoctor reads it, with a symlink to
# a folder outside the root that holds the same files with a secret marker: whatever moment a
# read lands on, nothing outside the root may be read (issue 24). Each read of /etc/os-release,
# /etc/passwd, /etc/ld.so.conf... resolves /etc and then opens the file: a resolver that builds
# a path string and hands it to the kernel follows the symlink swapped in between.
# The swap is one renameat2(RENAME_EXCHANGE) of the folder and the symlink, so /etc is always
# one or the other, never missing. Half the runs refuse openat2 by a seccomp filter, so that
# both ways of resolving (openat2 RESOLVE_IN_ROOT and the O_NOFOLLOW walk) are raced.
# GD_RACE_RUNS sets the number of runs (default 200: 7959ecd read outside in about a third).
source "$(dirname "$0")/lib.sh"

runs=${GD_RACE_RUNS:-200}
marker=OUTSIDE_ROOT_SECRET_$$
tree=$TMP/tree
outside=$TMP/elsewhere
mkdir -p "$tree/etc/modprobe.d" "$tree/usr/lib" "$outside/modprobe.d"
printf 'NAME="Ubuntu"\nID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04"\n' >"$tree/etc/os-release"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$tree/etc/passwd"
printf 'include /etc/ld.so.conf.d/*.conf\n' >"$tree/etc/ld.so.conf"
printf 'options nvidia NVreg_EnableGpuFirmware=1\n' >"$tree/etc/modprobe.d/nvidia.conf"
# The outside folder: every file the probes read below /etc, with the marker as content.
for f in os-release passwd group ld.so.conf ld.so.cache hostname modprobe.d/nvidia.conf; do
  printf 'NAME="%s"\nID=%s\nroot:x:0:0:%s:/root:/bin/sh\n/%s\noptions nvidia %s=1\n' \
    "$marker" "$marker" "$marker" "$marker" "$marker" >"$outside/$f"
done
ln -s "$outside" "$tree/etc.swap"

# The swapper: exchanges $tree/etc and $tree/etc.swap until it is killed or the tree is gone.
cat >"$TMP/swap.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
AT_FDCWD, RENAME_EXCHANGE = -100, 2
renameat2 = getattr(libc, "renameat2", None)
if renameat2 is None:  # C libraries without the wrapper: the raw call (x86_64 316, aarch64 276)
    number = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
    renameat2 = lambda *args: libc.syscall(number, *args)
if renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
    sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
open(sys.argv[3], "w").close()
# Ends by itself once the tree is gone (the test ended without killing it).
while renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0:
    pass
PY
# Half the runs go under a seccomp filter that refuses openat2 with EPERM, as Docker's older
# default profiles do: gpudoctor must then fall back to its O_NOFOLLOW walk, raced the same way.
cat >"$TMP/no_openat2.py" <<'PY'
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
NR_OPENAT2 = 437
# BPF: A = seccomp_data.nr; if A == 437 return ERRNO(EPERM) else ALLOW
def stmt(code, k): return struct.pack("HBBI", code, 0, 0, k)
def jump(code, k, jt, jf): return struct.pack("HBBI", code, jt, jf, k)
BPF_LD_W_ABS, BPF_JEQ_K, BPF_RET_K = 0x20, 0x15, 0x06
prog = stmt(BPF_LD_W_ABS, 0) + jump(BPF_JEQ_K, NR_OPENAT2, 0, 1) + \
       stmt(BPF_RET_K, 0x00050000 | errno.EPERM) + stmt(BPF_RET_K, 0x7fff0000)
buf = ctypes.create_string_buffer(prog)
class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fprog = SockFprog(len(prog) // 8, ctypes.cast(buf, ctypes.c_void_p))
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
   libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
    sys.exit("seccomp: " + os.strerror(ctypes.get_errno()))
libc.syscall.restype = ctypes.c_long
if libc.syscall(NR_OPENAT2, -100, b".", None, 0) != -1 or ctypes.get_errno() != errno.EPERM:
    sys.exit("seccomp: openat2 is not refused")
os.execv(sys.argv[1], sys.argv[1:])
PY
walk_mode=()
if python3 "$TMP/no_openat2.py" /bin/true 2>"$TMP/seccomp.err"; then
  walk_mode=(python3 "$TMP/no_openat2.py")
else
  skip "no seccomp filter to refuse openat2 here (the walk is not raced, only openat2): $(cat "$TMP/seccomp.err")"
fi

python3 "$TMP/swap.py" "$tree/etc" "$tree/etc.swap" "$TMP/swapping" 2>"$TMP/swap.err" &
swapper=$!
trap 'kill $swapper 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -e "$TMP/swapping" ] || ! kill -0 $swapper 2>/dev/null && break; sleep 0.05; done
if [ ! -e "$TMP/swapping" ]; then
  skip "the swapper could not exchange a folder and a symlink here: $(cat "$TMP/swap.err")"
  finish
fi

# One batch of runs: a line per run, "MODE RC REPORT INSIDE MISSING LEAK" (1 or 0 each), in
# $TMP/results. The batch of the walk runs under the filter as a whole (a filter is inherited).
cat >"$TMP/batch.sh" <<'SH'
gd=$1 tree=$2 marker=$3 count=$4 mode=$5 tmp=$6
for i in $(seq "$count"); do
  "$gd" --root "$tree" --json >"$tmp/run.out" 2>"$tmp/run.err"
  rc=$?
  report=0 inside=0 missing=0 leak=0
  grep -q '"schema_version"' "$tmp/run.out" && report=1
  # Which shape of /etc this run's read of os-release met: the folder, or the symlink (missing).
  grep -q 'PRETTY_NAME=\\"Ubuntu 22.04' "$tmp/run.out" && inside=1
  grep -A2 '"/etc/os-release": {' "$tmp/run.out" | grep -q '"error"' && missing=1
  if grep -q "$marker" "$tmp/run.out" "$tmp/run.err"; then
    leak=1
    [ -e "$tmp/leak.out" ] || cp "$tmp/run.out" "$tmp/leak.out"
  fi
  if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then cp "$tmp/run.err" "$tmp/bad.err"; fi
  echo "$mode $rc $report $inside $missing $leak" >>"$tmp/results"
done
SH
walk_runs=0
[ ${#walk_mode[@]} = 0 ] || walk_runs=$((runs / 2))
bash "$TMP/batch.sh" "$GD" "$tree" "$marker" $((runs - walk_runs)) openat2 "$TMP"
[ "$walk_runs" = 0 ] || "${walk_mode[@]}" /bin/bash "$TMP/batch.sh" "$GD" "$tree" "$marker" "$walk_runs" walk "$TMP"
total() { awk -v c="$1" -v m="${2:-}" '(m == "" || $1 == m) { s += $c } END { print s + 0 }' "$TMP/results"; }
leaks=$(total 6) walk_leaks=$(total 6 walk) reports=$(total 3) inside=$(total 4) missing=$(total 5)
bad_rc=$(awk '$2 != 0 && $2 != 1 { print $2; exit }' "$TMP/results")
kill $swapper 2>/dev/null
wait $swapper 2>/dev/null

checks=$((checks + 1))
if [ "$leaks" != 0 ]; then
  # The captured paths whose answer holds the marker: the files read outside the root.
  read_outside=$(python3 -c '
import json, sys
paths = json.load(open(sys.argv[1])).get("capture", {}).get("paths", {})
print(", ".join(p for p, v in sorted(paths.items()) if sys.argv[2] in json.dumps(v.get("read", ""))))' \
    "$TMP/leak.out" "$marker" 2>&1)
  fail "$leaks of $runs runs ($walk_leaks of them with openat2 refused) read files outside --root while /etc was swapped for a symlink; the first read: ${read_outside:-marker not in a captured read}"
fi
checks=$((checks + 1))
[ -z "$bad_rc" ] || fail "a run exited $bad_rc (not 0 or 1): $(head -c 300 "$TMP/bad.err")"
checks=$((checks + 1))
[ "$reports" = "$runs" ] || fail "only $reports of $runs runs wrote a report"
# The swap really raced the runs: gpudoctor met both shapes of /etc, the folder (os-release read)
# in some runs and the symlink (os-release missing inside the root) in others.
checks=$((checks + 1))
[ "$inside" -gt 0 ] && [ "$missing" -gt 0 ] ||
  fail "the swap did not race the runs: os-release read in $inside runs, missing in $missing of $runs"
echo "$runs runs ($walk_runs of them with openat2 refused): $leaks read outside the root, os-release read in $inside, missing in $missing"
finish
