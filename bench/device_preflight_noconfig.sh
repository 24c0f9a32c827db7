#!/usr/bin/env bash
# Issue 23 item 5 on the real H200: the pre-flight of an image without configuration (what
# `docker export | tar -x` gives). The container's own torch (2.11.0+cu130 in /opt/torch/.venv on
# the H200 machine) is bind-mounted into an image-like tree at /opt/venv/lib/python3.X/site-packages,
# with no config.json, and the tree is checked for a V100 (sm_70: cu130 carries no Volta code, so
# ml.torch-no-kernel-for-gpu is expected) and for an H200 (no error; the last line must not say
# "No problem found" over a Python only found by searching). Then the same without an interpreter
# (site-packages alone), and with --python naming the venv's interpreter (nothing left unchecked).
#   bash bench/device_preflight_noconfig.sh   (repo root; binary at build/gpudoctor; results in $OUT)
set -u
GD=$PWD/build/gpudoctor
R=${OUT:-/tmp/out}/preflight-noconfig
mkdir -p "$R"
T=60  # seconds per command

# The container's python with torch, and its site-packages folder.
PY=
for candidate in /opt/torch/.venv/bin/python3 "$(command -v python3)"; do
  [ -x "$candidate" ] && timeout $T "$candidate" -c 'import torch' 2>/dev/null && { PY=$candidate; break; }
done
[ -n "$PY" ] || { echo "no python with torch found" > "$R/error.txt"; exit 1; }
SITE=$(timeout $T "$PY" -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))')
VER=$(timeout $T "$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
{ echo "python: $PY"; echo "site-packages: $SITE"; echo "version: $VER"
  timeout $T "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_arch_list())'
  "$GD" --version; } > "$R/setup.txt" 2>&1

# The image-like trees: a venv with its interpreter link, and site-packages with no interpreter.
VENV=/tmp/gd-img-venv; BARE=/tmp/gd-img-bare
rm -rf "$VENV" "$BARE"
mkdir -p "$VENV/etc" "$VENV/usr/bin" "$VENV/opt/venv/bin" "$VENV/opt/venv/lib/python$VER/site-packages" \
  "$BARE/etc" "$BARE/opt/app/lib/python$VER/site-packages"
printf 'ID=ubuntu\nVERSION_ID="24.04"\n' | tee "$VENV/etc/os-release" > "$BARE/etc/os-release"
echo 'root:x:0:0:root:/root:/bin/bash' | tee "$VENV/etc/passwd" > "$BARE/etc/passwd"
: > "$VENV/usr/bin/python$VER" && chmod 755 "$VENV/usr/bin/python$VER"
ln -s "/usr/bin/python$VER" "$VENV/opt/venv/bin/python" && ln -s python "$VENV/opt/venv/bin/python3"
printf 'home = /usr/bin\nversion_info = %s.0\ninclude-system-site-packages = false\n' "$VER" > "$VENV/opt/venv/pyvenv.cfg"
find "$VENV" "$BARE" -maxdepth 6 | sort > "$R/trees.txt"

# Everything in one mount namespace, so the bind mounts stay private to this run.
cat > /tmp/gd-img-run.sh <<EOF
set -u
mount --bind "$SITE" "$VENV/opt/venv/lib/python$VER/site-packages" || { echo "bind mount failed"; exit 1; }
mount --bind "$SITE" "$BARE/opt/app/lib/python$VER/site-packages" || { echo "bind mount failed"; exit 1; }
run() {  # NAME ARGS...: text and JSON reports, exit codes, wall time
  local name=\$1; shift
  local start=\$(date +%s%N)
  timeout $T "$GD" --color never "\$@" > "$R/\$name.txt" 2>&1; echo "exit \$?" >> "$R/\$name.txt"
  echo "wall_ms \$(( (\$(date +%s%N) - start) / 1000000 ))" >> "$R/\$name.txt"
  timeout $T "$GD" --json --no-capture "\$@" > "$R/\$name.json" 2>/dev/null
}
run venv-v100 --root "$VENV" --target-gpu V100 --target-driver 580.95.05
run venv-h200 --root "$VENV" --target-gpu H200 --target-driver 580.95.05
run venv-h200-python --root "$VENV" --target-gpu H200 --target-driver 580.95.05 --python /opt/venv/bin/python3
run bare-v100 --root "$BARE" --target-gpu V100 --target-driver 580.95.05
run bare-h200 --root "$BARE" --target-gpu H200 --target-driver 580.95.05
EOF
timeout 400 unshare -m bash /tmp/gd-img-run.sh > "$R/run.log" 2>&1
echo "unshare exit $?" >> "$R/run.log"

# The lines that matter, per run: findings, the Python line, what was not checked, the verdict.
for f in "$R"/*.json; do
  [ -s "$f" ] || continue
  timeout $T python3 - "$f" <<'PY' >> "$R/summary.txt" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
facts = r["facts"]
value = lambda name: facts.get(name, {}).get("value", facts.get(name, {}).get("state"))
print("==", sys.argv[1].rsplit("/", 1)[-1])
print("  findings:", [(f["id"], f["severity"]) for f in r["findings"]])
for name in ("py.default.prefix", "py.default.kind", "py.default.via", "torch.version", "torch.sass_covering",
             "ml.gpus_without_torch_kernels", "py.not_checked", "py.envs", "target.image_config"):
    print("  %s = %s" % (name, value(name)))
print("  verdict:", r["summary"]["verdict"], "|", r["summary"]["verdict_text"])
PY
done
ls -la "$R"
