# deploy/kubernetes/ (issue 15 item 5): the manifests read by a real YAML parser and checked field
# by field (tests/e2e/kubernetes_check.py: names, types and required fields from the Kubernetes
# Python client's API models, python3-kubernetes); kubectl builds the kustomization and runs
# README's `kubectl apply -k` (client dry run) and `kubectl get nodes` against a stand-in API
# server on loopback (tests/e2e/fake_apiserver.py); the node-problem-detector rule's exact command
# obeys NPD's plugin protocol on captured hosts; the DaemonSet's script runs as written (its
# gpudoctor run replaced by a replay) and stops on SIGTERM; the image's glibc base is what lets the
# CUDA helper run (chroots with and without glibc).
# No cluster can run here (podman cannot start containers on this machine: crun's setrlimit is
# refused, so `podman kube play` cannot either; no kube-apiserver is packaged): scheduling,
# admission, the NVIDIA runtime's injection and NPD itself are not tested.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
K8S=$SRC/deploy/kubernetes

if ! $PY -c 'import yaml, prometheus_client, kubernetes' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 lacks yaml, prometheus_client or kubernetes (apt-get install python3-yaml python3-prometheus-client python3-kubernetes)"
  exit 125
fi

checks=$((checks + 1))
$PY "$SRC/tests/e2e/kubernetes_check.py" "$K8S" "$TMP/k8s.json" >"$TMP/k8s.txt" 2>&1 ||
  { fail "manifests: $(head -20 "$TMP/k8s.txt")"; finish; }  # the checks below read what it found
# kubectl apply -k: the kustomization builds, holds every manifest's objects, and sets the image.
if command -v kubectl >/dev/null; then
  checks=$((checks + 1))
  if kubectl kustomize "$K8S" >"$TMP/kustomized.yaml" 2>"$TMP/kustomize.err"; then
    $PY - "$K8S" "$TMP/kustomized.yaml" >"$TMP/kustomized.txt" 2>&1 <<'PYEOF' || fail "kubectl kustomize: $(head -5 "$TMP/kustomized.txt")"
import os, sys, yaml
def objects(docs):
    return sorted((d["kind"], d["metadata"]["name"]) for d in docs if d)
folder = sys.argv[1]
k = yaml.safe_load(open(os.path.join(folder, "kustomization.yaml")))
files = [d for r in k["resources"] for d in yaml.safe_load_all(open(os.path.join(folder, r)))]
built = list(yaml.safe_load_all(open(sys.argv[2])))
if objects(built) != objects(files):
    sys.exit(f"built {objects(built)}, the files hold {objects(files)}")
image = k["images"][0]["newName"] + ":" + k["images"][0]["newTag"]
images = {c["image"] for d in built if d["kind"] == "DaemonSet"
          for c in d["spec"]["template"]["spec"].get("initContainers", []) + d["spec"]["template"]["spec"]["containers"]}
if image not in images:
    sys.exit(f"no container runs {image}: {sorted(images)}")
PYEOF
  else
    fail "kubectl kustomize: $(head -5 "$TMP/kustomize.err")"
  fi
else
  skip "no kubectl to build the kustomization"
fi
field() { $PY -c 'import json,sys; v = eval(sys.argv[2], {}, {"k": json.load(open(sys.argv[1]))}); print(v if isinstance(v, str) else json.dumps(v))' "$TMP/k8s.json" "$1"; }

# NPD runs PATH ARGS...: here as `gpudoctor replay CAPTURE ARGS...`. Protocol: exit 0 healthy,
# 1 problem, anything else unknown; stdout, trimmed, at most max_output_length (80) bytes.
mapfile -t args < <(field '"\n".join(k["npd"]["args"])')
timeout_s=$(field 'k["npd"]["timeout_s"]')
npd_run() {  # NAME CAPTURE
  run_gd "$1" replay "$2" "${args[@]}"
  checks=$((checks + 1))
  local bytes lines
  bytes=$($PY -c 'import sys; print(len(open(sys.argv[1], "rb").read().strip()))' "$TMP/$1.out")
  lines=$(wc -l <"$TMP/$1.out")
  [ "$bytes" -le 80 ] && [ "$lines" = 1 ] || fail "$1: $lines lines, $bytes bytes: $(head -c 200 "$TMP/$1.out")"
}
npd_run npd_healthy "$HOSTS/h200-live-kernel.capture.json"
expect_rc npd_healthy 0
expect_out npd_healthy '^no node problems found$'
for broken in lxc-stale-uvm-major:devices.uvm-wrong-major fake-eight-one-stuck:cuda.gpu-stuck \
              fake-ctxfail:cuda.context-creation-fails; do
  npd_run "npd_${broken%%:*}" "$HOSTS/${broken%%:*}.capture.json"
  expect_rc "npd_${broken%%:*}" 1
  expect_out "npd_${broken%%:*}" "^${broken#*:}: "
done
# What CUDA did not confirm (a --root tree of a driver upgraded without a reboot) and a GPU that
# another job keeps busy never set the condition True: the plugin says what it did not prove.
npd_run npd_unconfirmed "$HOSTS/upgrade-without-reboot.capture.json"
expect_rc npd_unconfirmed 0
expect_out npd_unconfirmed '^no node problems found; 1 unconfirmed$'
npd_run npd_busy "$HOSTS/h200-live-busy-oom.capture.json"
expect_rc npd_busy 0
expect_out npd_busy '^no node problems found; 1 GPU\(s\) busy, not proven$'
# A user's CUDA_VISIBLE_DEVICES is not the node's problem: the condition stays False.
npd_run npd_cvd "$HOSTS/h200-live-cvd99.capture.json"
expect_rc npd_cvd 0
# gpudoctor itself failing is Unknown (2), never a problem.
echo '{not json' >"$TMP/corrupt.json"
run_gd npd_corrupt replay "$TMP/corrupt.json" "${args[@]}"
expect_rc npd_corrupt 2
# gpudoctor ends before NPD kills it: up to three helper runs of --cuda-timeout each, plus the host.
cuda_timeout=$(printf '%s\n' "${args[@]}" | sed -n '/^--cuda-timeout$/{n;p}')
checks=$((checks + 1))
[ -n "$cuda_timeout" ] && $PY -c "import sys; sys.exit(0 if 3 * $cuda_timeout + 10 <= $timeout_s else 1)" ||
  fail "the rule's timeout ${timeout_s}s leaves no room for 3 x --cuda-timeout ${cuda_timeout:-(unset)}"
checks=$((checks + 1))
[ "$(field 'k["npd"]["path"]')" = /opt/gpudoctor/gpudoctor ] || fail "plugin path $(field 'k["npd"]["path"]')"

# The DaemonSet's script under /bin/sh (dash here and in debian:bookworm-slim): one run writes the
# metrics and prints the npd line; SIGTERM ends it at once with 0.
script=$(field 'k["script"]')
mount=$(field 'k["textfile_mount"]')
checks=$((checks + 1))
grep -q '^ *sleep 300 & wait \$!$' <<<"$script" || fail "the script's sleep cannot be interrupted by SIGTERM: $script"
cat >"$TMP/gd-replay" <<WRAP
#!/bin/sh
exec "$GD" replay "$HOSTS/lxc-stale-uvm-major.capture.json" "\$@"
WRAP
chmod +x "$TMP/gd-replay"
mkdir -p "$TMP/textfile"
local_script=${script//\/usr\/local\/bin\/gpudoctor/$TMP/gd-replay}
local_script=${local_script//$mount\//$TMP/textfile/}
sh -n -c "$local_script" || fail "the DaemonSet's script is not valid sh"
sh -c "$local_script" >"$TMP/ds.out" 2>"$TMP/ds.err" &
ds=$!
for _ in $(seq 100); do [ -s "$TMP/textfile/gpudoctor.prom" ] && [ -s "$TMP/ds.out" ] && break; sleep 0.1; done
children=$(ps -o pid= --ppid $ds)
kill -TERM $ds
for _ in $(seq 30); do kill -0 $ds 2>/dev/null || break; sleep 0.1; done  # bash reaps it at once
if kill -0 $ds 2>/dev/null; then
  kill $(ps -o pid= --ppid $ds) 2>/dev/null
  kill -KILL $ds
  wait $ds
  rc="still running 3 s after SIGTERM"
else
  wait $ds
  rc=$?
fi
kill $children 2>/dev/null
checks=$((checks + 1))
[ "$rc" = 0 ] || fail "the script did not stop on SIGTERM with exit 0: $rc"
expect_out ds '^devices\.uvm-wrong-major: '
checks=$((checks + 1))
[ "$($PY "$SRC/tests/e2e/prometheus_check.py" value "$TMP/textfile/gpudoctor.prom" gpudoctor_finding id=devices.uvm-wrong-major)" = 1.0 ] ||
  fail "the DaemonSet's textfile lacks the finding: $(head -5 "$TMP/textfile/gpudoctor.prom")"

# The image: Dockerfile copies the binary make builds to the path the manifests run.
checks=$((checks + 1))
grep -qx 'COPY build/gpudoctor /usr/local/bin/gpudoctor' "$K8S/Dockerfile" && grep -q '^FROM debian:' "$K8S/Dockerfile" &&
  grep -q "$(field 'k["image"]')" "$K8S/Dockerfile" || fail "Dockerfile does not build the image the manifests run"
# README's recipe builds and pushes the image the kustomization names, applies this folder, and
# reads the condition NPD sets.
checks=$((checks + 1))
$PY - "$SRC/README.md" "$SRC" "$(field 'k["npd"]["condition"]')" >"$TMP/recipe.txt" 2>&1 <<'PYEOF' || fail "README's Kubernetes recipe: $(head -5 "$TMP/recipe.txt")"
import os, re, shlex, sys, yaml
readme, src, condition = sys.argv[1:]
section = open(readme).read().split("### Kubernetes\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
block = next(b for b in re.findall(r"```\n(.*?)```", section, re.S) if "kubectl apply -k" in b)
lines = [shlex.split(l) for l in block.splitlines() if l.strip()]
k = yaml.safe_load(open(os.path.join(src, "deploy/kubernetes/kustomization.yaml")))
image = k["images"][0]["newName"] + ":" + k["images"][0]["newTag"]
build = next(l for l in lines if l[:2] == ["docker", "build"])
assert build[build.index("-t") + 1] == image, f"docker build tags {build[build.index('-t') + 1]}, the kustomization runs {image}"
assert os.path.isfile(os.path.join(src, build[build.index("-f") + 1])), f"no {build[build.index('-f') + 1]}"
assert build[-1] == ".", "the build context is not the repository root"
assert ["docker", "push", image] in lines, f"the image pushed is not {image}"
assert ["kubectl", "apply", "-k", "deploy/kubernetes"] in lines, "kubectl apply -k deploy/kubernetes missing"
get = next(l for l in lines if l[:3] == ["kubectl", "get", "nodes"])
assert get[-1].count(f'@.type=="{condition}"') == 2, f"kubectl get nodes does not read the {condition} condition: {get[-1]}"
PYEOF
# README's kubectl commands, as written there, by a real kubectl against a stand-in API server on
# loopback (tests/e2e/fake_apiserver.py: discovery, no objects, a node list): `kubectl apply -k`
# (client dry run) sends every object of the folder, and `kubectl get nodes` prints the condition
# NPD sets from the plugin's line (here a node as NPD would leave it after the broken capture's run).
if command -v kubectl >/dev/null; then
  cond=$(field 'k["npd"]["condition"]')
  $PY - "$TMP/nodes.json" "$cond" "$(cat "$TMP/npd_lxc-stale-uvm-major.out")" "$(cat "$TMP/npd_healthy.out")" <<'PYEOF'
import json, sys
out, cond, sick, healthy = sys.argv[1:]
def node(name, status, message):
    return {"kind": "Node", "apiVersion": "v1", "metadata": {"name": name},
            "status": {"conditions": [{"type": "Ready", "status": "True"},
                                      {"type": cond, "status": status, "message": message}]}}
json.dump({"kind": "NodeList", "apiVersion": "v1", "metadata": {},
           "items": [node("gpu-sick", "True", sick), node("gpu-ok", "False", healthy)]}, open(out, "w"))
PYEOF
  $PY "$SRC/tests/e2e/fake_apiserver.py" "$TMP/api.port" "$TMP/nodes.json" "$TMP/api.log" >"$TMP/api.out" 2>&1 &
  api=$!
  trap 'kill $api 2>/dev/null; rm -rf "$TMP"' EXIT
  for _ in $(seq 50); do [ -s "$TMP/api.port" ] && break; sleep 0.1; done
  server=(--server "http://127.0.0.1:$(cat "$TMP/api.port")" --cache-dir "$TMP/kube-cache")
  mapfile -t recipe < <($PY - "$SRC/README.md" <<'PYEOF'
import re, sys
section = open(sys.argv[1]).read().split("### Kubernetes\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
block = next((b for b in re.findall(r"```\n(.*?)```", section, re.S) if "kubectl apply -k" in b), "")
for line in block.splitlines():
    if line.startswith("kubectl "):
        print(line)
PYEOF
)
  apply=${recipe[0]:-}
  get=${recipe[1]:-}
  checks=$((checks + 1))
  if [ -z "$get" ]; then
    fail "README's Kubernetes block lacks the kubectl apply -k and kubectl get lines"
  else
    eval "words=($apply)"
    (cd "$SRC" && "${words[@]}" "${server[@]}" --dry-run=client --validate=false) >"$TMP/apply.out" 2>"$TMP/apply.err"
    checks=$((checks + 1))
    $PY - "$K8S" "$TMP/apply.out" >"$TMP/apply.txt" 2>&1 <<'PYEOF' || fail "$apply: $(head -5 "$TMP/apply.txt" "$TMP/apply.err")"
import os, sys, yaml
folder = sys.argv[1]
k = yaml.safe_load(open(os.path.join(folder, "kustomization.yaml")))
want = sorted(f"{d['kind'].lower()}/{d['metadata']['name']}" for r in k["resources"]
              for d in yaml.safe_load_all(open(os.path.join(folder, r))) if d)
got = sorted(l.split()[0].split("/", 1)[0].split(".")[0] + "/" + l.split()[0].split("/", 1)[1]
             for l in open(sys.argv[2]) if l.strip().endswith("created (dry run)"))
if got != want:
    sys.exit(f"created {got}, the folder holds {want}")
PYEOF
    eval "words=($get)"
    "${words[@]}" "${server[@]}" >"$TMP/get.out" 2>"$TMP/get.err"
    checks=$((checks + 1))
    sick_line=$(cat "$TMP/npd_lxc-stale-uvm-major.out")
    grep -qxE "gpu-sick +True +$(printf '%s' "$sick_line" | sed 's/[][\.*^$()+?{}|]/\\&/g')" "$TMP/get.out" &&
      grep -qxE "gpu-ok +False +no node problems found" "$TMP/get.out" ||
      fail "$get: $(head -5 "$TMP/get.out" "$TMP/get.err")"
    checks=$((checks + 1))
    ! grep -qv '^GET ' "$TMP/api.log" || fail "kubectl sent more than GETs: $(grep -v '^GET ' "$TMP/api.log" | head -3)"
  fi
  kill $api 2>/dev/null
  wait $api 2>/dev/null
else
  skip "no kubectl to run README's kubectl commands"
fi
# Why a glibc base: chroot into a root file system holding the binary alone (FROM scratch), then
# one with this machine's glibc beside it (what debian:bookworm-slim has), each with /proc and
# /dev/null as a pod has them. No NVIDIA runtime injects a libcuda here, so with glibc the helper
# runs and reports that libcuda.so.1 did not load: where the runtime puts it, it would.
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null && [ "${GD_SANITIZED:-0}" != 1 ] &&
   mkdir -p "$TMP/proc-probe" && mount -t proc proc "$TMP/proc-probe" 2>/dev/null; then
  umount "$TMP/proc-probe"
  trap 'umount "$TMP"/rootfs-*/proc 2>/dev/null; kill ${api:-} 2>/dev/null; rm -rf "$TMP"' EXIT
  loader=$(readlink -f /lib64/ld-linux-x86-64.so.2)
  libc=$(ldd /bin/true | grep -o '/[^ ]*libc\.so\.6')
  for rootfs in scratch glibc; do
    r=$TMP/rootfs-$rootfs
    mkdir -p "$r/usr/local/bin" "$r/proc" "$r/dev"
    mknod -m 666 "$r/dev/null" c 1 3
    cp "$GD" "$r/usr/local/bin/gpudoctor"
    if [ $rootfs = glibc ]; then
      # glibc's libraries libcuda and the helper need (libpthread, libdl and librt are stubs
      # since glibc 2.34, and still named by older binaries).
      for lib in "$loader" "$libc" "$(dirname "$libc")"/{libpthread.so.0,libdl.so.2,libm.so.6,librt.so.1}; do
        mkdir -p "$r$(dirname "$lib")" && cp "$lib" "$r$lib"
      done
      mkdir -p "$r/lib64" && ln -sf "$loader" "$r/lib64/ld-linux-x86-64.so.2"
    fi
    mount -t proc proc "$r/proc"
    chroot "$r" /usr/local/bin/gpudoctor --scope node --json --no-capture >"$TMP/$rootfs.out" 2>"$TMP/$rootfs.err"
    rc=$?
    umount "$r/proc"
    sanitizer_clean "$rootfs"
  done
  expect_fact scratch cuda.helper.status '"no-glibc-loader"'
  # It is the image's (environment) problem, so --scope node leaves it out and names it: a FROM
  # scratch pod would report a healthy node whose GPUs it never checked.
  checks=$((checks + 1))
  left_out=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["left_out"])' "$TMP/scratch.out" 2>&1)
  grep -q "'cuda.no-glibc-loader'" <<<"$left_out" || fail "scratch: cuda.no-glibc-loader not among the left out: $left_out"
  expect_fact glibc cuda.helper.status '"ok"'
  expect_fact glibc cuda.libcuda.loaded false
  checks=$((checks + 1))
  grep -q '"value": "libcuda.so.1: cannot open shared object file' "$TMP/glibc.out" ||
    fail "glibc: the helper did not try libcuda.so.1: $(grep -A3 '"cuda.libcuda.dlerror"' "$TMP/glibc.out" | head -4)"
else
  skip "the chroot comparison needs root, chroot, mount -t proc (and an uninstrumented binary)"
fi
finish
