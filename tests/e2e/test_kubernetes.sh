# deploy/kubernetes/ (issue 15 item 5): the manifests read by a real YAML parser and checked field
# by field (tests/e2e/kubernetes_check.py); the node-problem-detector rule's exact command obeys
# NPD's plugin protocol on captured hosts; the DaemonSet's script runs as written (its gpudoctor
# run replaced by a replay) and stops on SIGTERM; the image's glibc base is what makes CUDA
# checkable (a root file system with the binary alone reports cuda.no-glibc-loader).
# The field names and types are the Kubernetes Python client's (python3-kubernetes), and kubectl
# builds the kustomization where it is installed. No cluster can run here (podman cannot start
# containers on this machine: crun's setrlimit is refused, so `podman kube play` cannot either, and
# kubectl's validation needs an API server): scheduling, the runtime's injection and NPD itself are
# not tested.
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
              upgrade-without-reboot:driver.userspace-version-mismatch; do
  npd_run "npd_${broken%%:*}" "$HOSTS/${broken%%:*}.capture.json"
  expect_rc "npd_${broken%%:*}" 1
  expect_out "npd_${broken%%:*}" "^${broken#*:}: "
done
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
# Why a glibc base: chroot into a root file system holding the binary alone (FROM scratch), then
# one with this machine's glibc beside it (what debian:bookworm-slim has).
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null && [ "${GD_SANITIZED:-0}" != 1 ]; then
  loader=$(readlink -f /lib64/ld-linux-x86-64.so.2)
  for rootfs in scratch glibc; do
    r=$TMP/rootfs-$rootfs
    mkdir -p "$r/usr/local/bin" "$r/proc" "$r/dev"
    cp "$GD" "$r/usr/local/bin/gpudoctor"
    if [ $rootfs = glibc ]; then
      for lib in "$loader" $(ldd /bin/true | grep -o '/[^ ]*libc\.so\.6'); do
        mkdir -p "$r$(dirname "$lib")" && cp "$lib" "$r$lib"
      done
      mkdir -p "$r/lib64" && ln -sf "$loader" "$r/lib64/ld-linux-x86-64.so.2"
    fi
    chroot "$r" /usr/local/bin/gpudoctor --scope node --json --no-capture >"$TMP/$rootfs.out" 2>"$TMP/$rootfs.err"
    rc=$?
    sanitizer_clean "$rootfs"
  done
  expect_fact scratch cuda.helper.status '"no-glibc-loader"'
  # It is the image's (environment) problem, so --scope node leaves it out and names it: a FROM
  # scratch pod would report a healthy node whose GPUs it never checked.
  checks=$((checks + 1))
  left_out=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["left_out"])' "$TMP/scratch.out" 2>&1)
  grep -q "'cuda.no-glibc-loader'" <<<"$left_out" || fail "scratch: cuda.no-glibc-loader not among the left out: $left_out"
  checks=$((checks + 1))
  status=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"]["cuda.helper.status"].get("value"))' "$TMP/glibc.out" 2>&1)
  [ "$status" != no-glibc-loader ] && [ "$status" != None ] || fail "glibc: helper status $status: $(head -3 "$TMP/glibc.err")"
else
  skip "the chroot comparison needs root and chroot (and an uninstrumented binary)"
fi
finish
