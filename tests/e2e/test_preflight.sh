# Offline answers (issue 18): pre-flight checks of container images built here with a real Python
# packaging layout and fat binaries (tests/e2e/make_image_tree.py), a host tree without /proc (a
# mounted filesystem), and --root never opening a tree's device nodes.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

ids() { echo "[f['id'] for f in r['findings'] if f['severity'] == 'error']"; }

"$PY" "$SRC/tests/e2e/make_image_tree.py" "$TMP/cu124" cu124 || fail "make_image_tree cu124"
"$PY" "$SRC/tests/e2e/make_image_tree.py" "$TMP/cu130" cu130 "cuda>=13.0 brand=tesla,driver>=535,driver<536" ||
  fail "make_image_tree cu130"

# A cu124 torch image (SASS up to sm_90, no PTX) for a Blackwell node: no kernel for sm_120.
run_gd blackwell --root "$TMP/cu124/rootfs" --target-gpu 10de:2bb5 --target-driver 580.95.05 --json --no-capture
expect_rc blackwell 1
expect_json blackwell "$(ids)" "['ml.torch-no-kernel-for-gpu']"
expect_json blackwell "r['run']['mode']" "preflight"
expect_json blackwell "r['facts']['target.gpu']['value']" "RTX PRO 6000 Server (10de:2bb5, GB202, Blackwell, cc 12.0)"
# The image's variables come from the bundle's config.json, never the caller's; a token never.
expect_json blackwell "r['facts']['env.nvidia_visible_devices']['value']" "all"
checks=$((checks + 1))
grep -q hf_not_a_real_token "$TMP/blackwell.out" && fail "blackwell: the image's HF_TOKEN reached the report"
# The same image for an H200 (sm_90): no error, exit 0 (its missing pinned wheels are warnings).
run_gd hopper --root "$TMP/cu124/rootfs" --target-gpu H200 --target-driver 580.95.05
expect_rc hopper 0
expect_out hopper '^\[ok\] NVIDIA GPUs \(PCI\): target: H200 \(10de:2335, GH100, Hopper, cc 9\.0\) \(pre-flight: not read\)$'
expect_out hopper '^\[-\] Device nodes: not read: the container runtime creates them on the target host'
expect_no_out hopper '^error '
expect_no_out hopper 'ml\.torch-no-kernel-for-gpu'

# A cu130 image on a 550 driver (CUDA 12.4): torch's CUDA and the image's NVIDIA_REQUIRE_CUDA.
run_gd old_driver --root "$TMP/cu130/rootfs" --target-gpu sm_90 --target-driver 550.54.15 --json --no-capture
expect_rc old_driver 1
expect_json old_driver "sorted($(ids))" "['container.require-cuda-unmet', 'ml.torch-cuda-above-driver']"
expect_json old_driver "r['facts']['container.driver_cuda_version']['value']" "12.4"
# A B300 on a 570 driver: the driver predates the GPU (unconfirmed: CUDA is not run).
run_gd b300 --root "$TMP/cu130/rootfs" --target-gpu B300 --target-driver 570.124.06 --json --no-capture
expect_rc b300 1
expect_json b300 "[f['confirmed'] for f in r['findings'] if f['id'] == 'hardware.gpu-newer-than-driver']" "[False]"
# The right pair: nothing in the image's way.
run_gd fits --root "$TMP/cu130/rootfs" --target-gpu "RTX PRO 6000" --target-driver 580.95.05
expect_rc fits 0
expect_out fits '^No problem found in the image for the target \(RTX PRO 6000 \(10de:2bb5, GB202, Blackwell, cc 12\.0\), driver 580\.95\.05\); the host itself was not read\.$|^Found 0 errors and [0-9]+ warnings?\.'
expect_no_out fits '^error '
# --image-config names the configuration explicitly (here: the same one, elsewhere).
cp "$TMP/cu130/config.json" "$TMP/image-config.json"
mv "$TMP/cu130/rootfs" "$TMP/cu130/tree"
run_gd explicit --root "$TMP/cu130/tree" --target-gpu sm_90 --target-driver 550.54.15 --image-config "$TMP/image-config.json" --json --no-capture
expect_json explicit "r['facts']['env.nvidia_require_cuda']['value']" "cuda>=13.0 brand=tesla,driver>=535,driver<536"
run_gd no_config --root "$TMP/cu130/tree" --target-gpu sm_90 --target-driver 550.54.15 --json --no-capture
expect_json no_config "r['facts']['env.nvidia_require_cuda']['state']" "absent"
# Without a configuration the image runs with the runtime's default PATH, on which a python3 in
# /usr/bin is found (the venv of the bundle's configuration is not on it). That python imports no
# ML package, so the venv the search finds under /opt, which holds torch, is the one checked
# (issue 23), and the report says it was found by searching, not on the PATH.
mkdir -p "$TMP/cu130/tree/usr/bin" && ln -s python3.12 "$TMP/cu130/tree/usr/bin/python3"
run_gd default_path --root "$TMP/cu130/tree" --target-gpu sm_90 --target-driver 550.54.15 --json --no-capture
expect_json default_path "r['facts']['py.interpreters']['value']" "['/usr/bin/python3 -> /usr/bin/python3.12']"
expect_json default_path "r['facts']['py.default.interpreter']['value']" "/opt/venv/bin/python3"
expect_json default_path "r['facts']['py.default.via']['value']" "found by searching /opt"
expect_json default_path "sorted($(ids))" "['ml.torch-cuda-above-driver']"

# Issue 23: an image unpacked with `docker export | tar -x` has no configuration; its torch
# (cu124: SASS up to sm_90, no PTX) lives in a venv under /opt that no known PATH reaches. The
# search finds it, its torch is judged for the Blackwell target, and the report says how it was found.
"$PY" "$SRC/tests/e2e/make_image_tree.py" "$TMP/exported" cu124 || fail "make_image_tree exported"
rm "$TMP/exported/config.json" && mv "$TMP/exported/rootfs" "$TMP/exported/tree"
run_gd exported --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05 --json --no-capture
expect_rc exported 1
expect_json exported "$(ids)" "['ml.torch-no-kernel-for-gpu']"
expect_json exported "r['facts']['py.default.prefix']['value']" "/opt/venv"
expect_json exported "r['facts']['py.default.via']['value']" "found by searching /opt"
expect_json exported "r['facts']['target.image_config']['state']" "absent"
expect_json exported "len(r['facts']['py.not_checked']['value'])" "1"
run_gd exported_text --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05
expect_rc exported_text 1
expect_out exported_text '^\[X\] Python / PyTorch: Python 3\.12 in /opt/venv \(venv, found by searching /opt\); torch 2\.6\.0\+cu124'
expect_out exported_text 'give --python /opt/venv/bin/python3 if the image runs it, or --image-config FILE'
expect_no_out exported_text '^No problem found'
# For the H200 its torch has kernels: no error, and the last line does not say "No problem found"
# over a Python it only guessed the image runs.
run_gd exported_hopper --root "$TMP/exported/tree" --target-gpu H200 --target-driver 580.95.05
expect_rc exported_hopper 0
expect_no_out exported_hopper '^error '
expect_no_out exported_hopper '^No problem found'
# --scope node leaves the image's Python out: the last line says so, not "No problem found".
run_gd exported_node --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05 --scope node
expect_no_out exported_node '^No problem found'
expect_out exported_node '^No problem confirmed in the image for the target .*: its Python was not checked \(--scope node\)\. The host itself was not read\.'
# --python (a path inside the image) says which Python the image runs: nothing is left unchecked.
run_gd exported_python --root "$TMP/exported/tree" --target-gpu H200 --target-driver 580.95.05 --python /opt/venv/bin/python3 --json --no-capture
expect_json exported_python "r['facts']['py.default.via']['value']" "--python"
expect_json exported_python "r['facts']['py.not_checked']['value']" "[]"
# --image-config gives the image's PATH: /opt/venv/bin is on it, nothing is left unchecked.
printf '{"config": {"Env": ["PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]}}' >"$TMP/exported-config.json"
run_gd exported_config --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05 --image-config "$TMP/exported-config.json" --json --no-capture
expect_rc exported_config 1
expect_json exported_config "$(ids)" "['ml.torch-no-kernel-for-gpu']"
expect_json exported_config "r['facts']['py.default.via']['value']" "PATH"
expect_json exported_config "r['facts']['py.not_checked']['value']" "[]"
# The capture of a pre-flight without configuration replays to the same findings and gaps.
run_gd exported_captured --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05 --json
cp "$TMP/exported_captured.out" "$TMP/exported.capture.json"
run_gd exported_replayed replay "$TMP/exported.capture.json" --json --no-capture
expect_json exported_replayed "$(ids)" "['ml.torch-no-kernel-for-gpu']"
expect_json exported_replayed "r['facts']['py.not_checked']['value']" "$(json_field exported "r['facts']['py.not_checked']['value']")"
expect_json exported_replayed "r['facts']['target.image_config']['state']" "absent"
run_gd config_captured --root "$TMP/exported/tree" --target-gpu 10de:2bb5 --target-driver 580.95.05 --image-config "$TMP/exported-config.json" --json
cp "$TMP/config_captured.out" "$TMP/config.capture.json"
run_gd config_replayed replay "$TMP/config.capture.json" --json --no-capture
expect_json config_replayed "r['facts']['target.image_config']['value']" "$TMP/exported-config.json"
expect_json config_replayed "r['facts']['py.not_checked']['value']" "[]"
# The torch of a venv whose interpreter is gone (only site-packages copied in): still judged, and
# the report says no interpreter was found for it.
cp -a "$TMP/exported/tree" "$TMP/no_python" && rm -r "$TMP/no_python/opt/venv/bin" "$TMP/no_python/usr/bin"
run_gd no_python --root "$TMP/no_python" --target-gpu 10de:2bb5 --target-driver 580.95.05 --json --no-capture
expect_rc no_python 1
expect_json no_python "$(ids)" "['ml.torch-no-kernel-for-gpu']"
expect_json no_python "r['facts']['py.default.kind']['value']" "site-packages"
expect_json no_python "'no Python interpreter of the image was found' in r['facts']['py.not_checked']['value'][0]" "True"

# An image that bakes in a driver's libcuda (550.54.15, in its ld.so.cache) for a 580 host: the
# image's libcuda is not the target driver's release.
if command -v ldconfig >/dev/null && [ -f "$FAKES/libcuda.so.1" ]; then
  cp -a "$TMP/cu124" "$TMP/baked"
  lib=$TMP/baked/rootfs/usr/lib/x86_64-linux-gnu
  mkdir -p "$lib"
  cp "$FAKES/libcuda.so.1" "$lib/libcuda.so.550.54.15"  # an ELF with the soname libcuda.so.1
  echo /usr/lib/x86_64-linux-gnu >"$TMP/baked/rootfs/etc/ld.so.conf"
  ldconfig -r "$TMP/baked/rootfs" || fail "ldconfig -r"
  run_gd baked --root "$TMP/baked/rootfs" --target-gpu H200 --target-driver 580.95.05 --json --no-capture
  expect_rc baked 1
  expect_json baked "$(ids)" "['driver.userspace-version-mismatch']"
  expect_json baked "r['facts']['kmod.nvidia.userspace_mismatch']['value']" "['libcuda 550.54.15 (/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15)']"
else
  skip "no ldconfig or no fake libcuda to bake into an image"
fi

# A pre-flight's capture replays to the same findings.
run_gd captured --root "$TMP/cu124/rootfs" --target-gpu 10de:2bb5 --target-driver 580.95.05 --json
cp "$TMP/captured.out" "$TMP/preflight.capture.json"
run_gd replayed replay "$TMP/preflight.capture.json" --json --no-capture
expect_rc replayed 1
expect_json replayed "$(ids)" "['ml.torch-no-kernel-for-gpu']"

# Bad input: one line naming what is wrong, exit 2.
run_gd no_root --target-gpu H200 --target-driver 580.95.05
expect_rc no_root 2
expect_err no_root 'give it with --root IMAGE'
expect_err no_root 'docker export \$\(docker create IMAGE\) \| tar -x -C DIR, then --root DIR --image-config FILE'
# --root / is this host's own files: the message says how to check this host instead.
run_gd system_root --root / --target-gpu H200 --target-driver 580.95.05
expect_rc system_root 2
expect_err system_root "^gpudoctor: error: --root / with --target-gpu/--target-driver would check this host's own files"
expect_err system_root 'to check this host, run gpudoctor without --root, --target-gpu and --target-driver'
run_gd system_root_dot --root /. --target-gpu H200 --target-driver 580.95.05
expect_rc system_root_dot 2
expect_err system_root_dot "^gpudoctor: error: --root /\. with --target-gpu"
run_gd bad_gpu --root "$TMP/cu124/rootfs" --target-gpu H9000 --target-driver 580.95.05
expect_rc bad_gpu 2
expect_err bad_gpu '^gpudoctor: error: --target-gpu H9000: not a GPU gpudoctor knows'
run_gd bad_driver --root "$TMP/cu124/rootfs" --target-gpu H200 --target-driver latest
expect_rc bad_driver 2
expect_err bad_driver '^gpudoctor: error: --target-driver latest: not a driver version'
run_gd half --root "$TMP/cu124/rootfs" --target-gpu H200
expect_rc half 2
printf '{"config": {"Env": "PATH=/bin"}}' >"$TMP/broken-config.json"
run_gd bad_config --root "$TMP/cu124/rootfs" --target-gpu H200 --target-driver 580.95.05 --image-config "$TMP/broken-config.json"
expect_rc bad_config 2
expect_err bad_config "^gpudoctor: error: $TMP/broken-config.json: the Env entry is not a list"

# A mounted host filesystem without /proc, /sys or /dev (rescue from a live system): nothing it
# cannot see is called missing; the last line says what was not checked.
mkdir -p "$TMP/mounted/etc" "$TMP/mounted/usr/lib/x86_64-linux-gnu"
printf 'ID=debian\nVERSION_ID="12"\n' >"$TMP/mounted/etc/os-release"
run_gd mounted --root "$TMP/mounted"
expect_rc mounted 0
expect_no_out mounted '^error '
expect_no_out mounted '^No problems found'
expect_out mounted '^No problem confirmed; '
expect_out mounted '^\[\?\] Device nodes: unknown'
expect_out mounted '^\[\?\] NVIDIA kernel module: unknown: no /proc/driver/nvidia/version and no /proc/modules: /proc is not mounted here$'
# The same with an empty /proc, as `mount --bind / /mnt` leaves it.
mkdir -p "$TMP/mounted/proc" "$TMP/mounted/sys" "$TMP/mounted/dev"
touch "$TMP/mounted/.dockerenv"  # the root filesystem of a container, bound elsewhere
run_gd mounted_empty --root "$TMP/mounted"
expect_rc mounted_empty 0
expect_no_out mounted_empty 'not loaded'
expect_no_out mounted_empty 'nvidiactl missing'
expect_no_out mounted_empty '^error \[container\.no-gpus\]'
expect_out mounted_empty '^\[\?\] Device nodes: unknown: the tree.s /dev is not populated \(no /dev/null\): devtmpfs is not mounted here$'
expect_out mounted_empty '^No problem confirmed; '

# --root never opens the tree's device nodes: the running kernel has nothing to do with them (a
# node of major 195 here, where no nvidia driver is loaded, would read ENXIO).
if [ "$(id -u)" = 0 ]; then
  tree=$TMP/nodes
  mkdir -p "$tree/dev" "$tree/proc/driver/nvidia"
  printf 'Character devices:\n195 nvidia-frontend\n511 nvidia-uvm\n' >"$tree/proc/devices"
  printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Wed Jul  2 21:48:30 UTC 2025\n' \
    >"$tree/proc/driver/nvidia/version"
  mknod "$tree/dev/null" c 1 3 && mknod "$tree/dev/nvidiactl" c 195 255 && mknod "$tree/dev/nvidia-uvm" c 511 0 ||
    fail "mknod"
  run_gd nodes --root "$tree" --json --no-capture
  expect_json nodes "r['facts']['dev.nvidiactl.state']['value']" "unopened"
  expect_json nodes "r['facts']['dev.uvm.state']['value']" "unopened"
  checks=$((checks + 1))
  grep -q ENXIO "$TMP/nodes.out" && fail "nodes: a --root tree's node was opened (ENXIO in the report)"
  run_gd nodes_text --root "$tree"
  expect_out nodes_text '^\[ok\] Device nodes: nvidiactl unopened, nvidia-uvm unopened \(major 511\); opening not tested'
else
  skip "the device-node tree needs root for mknod"
fi
finish
