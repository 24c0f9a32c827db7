# gpudoctor changes nothing on disk and creates no file: a --root tree is hashed (contents,
# modes, modification times, names) before and after, and a live run from an empty folder with an
# empty TMPDIR leaves both empty.
source "$(dirname "$0")/lib.sh"

state() {  # a listing of everything under $1 that a change would alter (not access times)
  find "$1" -printf '%P %y %m %s %T@ %l\n' | sort
  find "$1" -type f -exec sha256sum {} + | sed "s|$1||" | sort
}

tree=$TMP/tree
mkdir -p "$tree/proc/driver/nvidia/gpus/0000:00:06.0" "$tree/dev" "$tree/etc" "$tree/usr/lib" "$tree/home/u/.venv/bin"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build\n' \
  >"$tree/proc/driver/nvidia/version"
printf 'Character devices:\n195 nvidia\n238 nvidia-uvm\n' >"$tree/proc/devices"
printf 'nvidia 1 - - Live 0x0 (O)\n' >"$tree/proc/modules"
printf 'home = /usr/bin\nversion = 3.12.3\n' >"$tree/home/u/.venv/pyvenv.cfg"
ln -s /usr/bin/python3.12 "$tree/home/u/.venv/bin/python3"
ln -s missing "$tree/usr/lib/libcuda.so.1"
mkfifo "$tree/dev/fifo"
before=$(state "$tree")
# An unchanged tree proves nothing if gpudoctor did not run: each run must finish its report.
# (The tree has the module loaded and no /dev/nvidia* nodes: without the CUDA proof those errors
# are reported unconfirmed, exit 1.)
run_gd root --root "$tree" --json
expect_rc root 1
expect_out root '"confirmed": false' 
expect_out root '"schema_version": 1'
expect_out root '"kmod.nvidia.version": \{'
run_gd root_text --root "$tree" -v
expect_rc root_text 1
expect_out root_text '^  kmod\.nvidia\.version = 580\.159\.04'
expect_out root_text '^Found [0-9]+ errors? and [0-9]+ warnings?\. None is confirmed by CUDA\.'
after=$(state "$tree")
checks=$((checks + 1))
[ "$before" = "$after" ] || fail "--root changed the tree: $(diff <(echo "$before") <(echo "$after") | head -5)"

empty=$TMP/cwd
mkdir -p "$empty" "$TMP/tmpdir"
(cd "$empty" && TMPDIR=$TMP/tmpdir "$GD" --json >"$TMP/live.out" 2>"$TMP/live.err"; echo $? >"$TMP/live.rc"
  TMPDIR=$TMP/tmpdir "$GD" --no-cuda >"$TMP/live_text.out" 2>"$TMP/live_text.err"; echo $? >"$TMP/live_text.rc")
for name in live live_text; do  # this machine: any finding is fine, a crash or usage error is not
  rc=$(cat "$TMP/$name.rc")
  sanitizer_clean "$name"
  checks=$((checks + 1))
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$name: exit $rc: $(head -3 "$TMP/$name.err")"
done
expect_out live '"schema_version": 1'
expect_out live '"capture": \{'
expect_out live_text '^(No problems found|No problem confirmed;|Found [0-9]+ errors? and [0-9]+ warnings?\.)'
checks=$((checks + 1))
created=$(find "$empty" "$TMP/tmpdir" -mindepth 1)
[ -z "$created" ] || fail "a run created files: $created"

# The kernel proof is JIT-compiled by the driver, which would cache it in ~/.nv/ComputeCache: the
# helper runs with CUDA_CACHE_DISABLE=1. Checked here with a fake libcuda that writes the cache
# unless that variable is set (on the real H200: bench/results/parallel-proof/read-only.txt).
home=$TMP/home
mkdir -p "$home"
HOME=$home FAKE_CUDA_JIT_CACHE=1 run_gd jit --libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1" --json
# (the exit code is this machine's findings; the fact says the proof ran)
expect_fact jit cuda.kernel.proven_count 1
checks=$((checks + 1))
created=$(find "$home" -mindepth 1)
[ -z "$created" ] || fail "the CUDA proof wrote under HOME: $created"
finish
