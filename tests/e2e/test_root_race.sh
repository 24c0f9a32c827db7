# A --root tree whose /etc is swapped, over and over while gpudoctor reads it, with a symlink to
# a folder outside the root that holds the same files with a secret marker: whatever moment a
# read lands on, nothing outside the root may be read (issue 24). Each read of /etc/os-release,
# /etc/passwd, /etc/ld.so.conf... resolves /etc and then opens the file: a resolver that builds
# a path string and hands it to the kernel follows the symlink swapped in between.
# The swap is one renameat2(RENAME_EXCHANGE) of the folder and the symlink, so /etc is always
# one or the other, never missing. GD_RACE_RUNS sets the number of runs (default 300).
source "$(dirname "$0")/lib.sh"

runs=${GD_RACE_RUNS:-300}
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
python3 "$TMP/swap.py" "$tree/etc" "$tree/etc.swap" "$TMP/swapping" 2>"$TMP/swap.err" &
swapper=$!
trap 'kill $swapper 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -e "$TMP/swapping" ] || ! kill -0 $swapper 2>/dev/null && break; sleep 0.05; done
if [ ! -e "$TMP/swapping" ]; then
  skip "the swapper could not exchange a folder and a symlink here: $(cat "$TMP/swap.err")"
  finish
fi

leaks=0 reports=0 inside=0 missing=0
for i in $(seq "$runs"); do
  "$GD" --root "$tree" --json >"$TMP/run.out" 2>"$TMP/run.err"
  rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || { cp "$TMP/run.out" "$TMP/bad.out"; cp "$TMP/run.err" "$TMP/bad.err"; bad_rc=$rc; }
  grep -q '"schema_version"' "$TMP/run.out" && reports=$((reports + 1))
  # Which shape of /etc this run's read of os-release met: the folder, or the symlink (missing).
  grep -q 'PRETTY_NAME=\\"Ubuntu 22.04' "$TMP/run.out" && inside=$((inside + 1))
  grep -A2 '"/etc/os-release": {' "$TMP/run.out" | grep -q '"error"' && missing=$((missing + 1))
  if grep -q "$marker" "$TMP/run.out" "$TMP/run.err"; then
    leaks=$((leaks + 1))
    [ -e "$TMP/leak.out" ] || cp "$TMP/run.out" "$TMP/leak.out"
  fi
done
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
  fail "$leaks of $runs runs read files outside --root while /etc was swapped for a symlink; the first read: ${read_outside:-marker not in a captured read}"
fi
checks=$((checks + 1))
[ -z "${bad_rc:-}" ] || fail "a run exited $bad_rc (not 0 or 1): $(head -c 300 "$TMP/bad.err")"
checks=$((checks + 1))
[ "$reports" = "$runs" ] || fail "only $reports of $runs runs wrote a report"
# The swap really raced the runs: gpudoctor met both shapes of /etc, the folder (os-release read)
# in some runs and the symlink (os-release missing inside the root) in others.
checks=$((checks + 1))
[ "$inside" -gt 0 ] && [ "$missing" -gt 0 ] ||
  fail "the swap did not race the runs: os-release read in $inside runs, missing in $missing of $runs"
echo "$runs runs: $leaks read outside the root, os-release read in $inside, missing in $missing"
finish
