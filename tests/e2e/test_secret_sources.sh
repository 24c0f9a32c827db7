# Secrets in every source gpudoctor reads leave the process in no output (issue 24 item 5):
# distinct tokens (a Hugging Face hf_ token, an AWS AKIA key id, a GitHub ghp_ token, a URL's
# password) planted in the live environment on allowlisted names, in an image configuration's
# variables for a pre-flight (a runtime bundle's config.json and an --image-config file), in a
# capture's variables and in its files (the GPU's UUID, the node's name, the GPU's name: what
# Prometheus labels carry) for replay, and in another node's report (finding title, message,
# fix, evidence, fact values, host) for fleet and diff. Every output format of each command is
# run and every byte it writes (stdout, stderr, --textfile) is searched for every token. The
# scrubbing keeps what rules and users need: a GPU UUID in CUDA_VISIBLE_DEVICES survives, the
# rules answer a planted token as they answer a plain word in its place, and no real capture's
# report has anything scrubbed.
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
OUT=$TMP/out
mkdir -p "$OUT"

# The tokens of source TAG (capital letters only): TAG inside each, so a leak names its source.
# What is searched for is the part after the prefix too, so an escaped prefix (hf\_ in Markdown)
# still counts as a leak.
pad() { printf '%s%s' "$1" "$2" | cut -c1-"$3"; }
hf_of() { echo "hf_$(pad "$1" QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUiOp 34)"; }
aws_of() { echo "AKIA$(pad "$1" 7Q2W3E4R5T6Y7U8I9O 16)"; }
ghp_of() { echo "ghp_$(pad "$1" 9aZ8bY7cX6dW5eV4fU3gT2hS1iR0jQkPlOmN 36)"; }
url_of() { echo "https://user:SECRETPASS$1@pypi.example.com/simple"; }
SOURCES="LIVE IMAGE OCI REPLAY FILES FLEET DIFF"
: >"$TMP/needles"
for tag in $SOURCES; do
  { hf_of "$tag" | cut -c4-; aws_of "$tag"; ghp_of "$tag" | cut -c5-; echo "SECRETPASS$tag@"; } >>"$TMP/needles"
done

# keep NAME: the outputs of the run NAME (stdout, stderr) go to the scanned folder.
keep() {
  cp "$TMP/$1.out" "$OUT/$1.out"
  cp "$TMP/$1.err" "$OUT/$1.err"
}
# every_format NAME ARGS...: the run in text, --json, markdown, prometheus, npd and --textfile.
every_format() {
  local name=$1; shift
  run_gd "$name-text" "$@"; keep "$name-text"
  run_gd "$name-json" "$@" --json; keep "$name-json"
  run_gd "$name-md" "$@" --format markdown; keep "$name-md"
  run_gd "$name-prom" "$@" --format prometheus; keep "$name-prom"
  run_gd "$name-npd" "$@" --format npd; keep "$name-npd"
  run_gd "$name-textfile" "$@" --textfile "$OUT/$name.prom"; keep "$name-textfile"
  checks=$((checks + 1))
  [ -s "$OUT/$name.prom" ] || fail "$name: --textfile wrote nothing (exit $rc): $(head -c 300 "$TMP/$name-textfile.err")"
  expect_out "$name-prom" '^gpudoctor_info'
  expect_json "$name-json" 'r["schema_version"]' 1
}

# --- the live environment, on allowlisted names (read under --root as on the live host) ---
"$PY" "$SRC/tests/e2e/make_image_tree.py" "$TMP/bundle" cu130 || fail "make_image_tree"
(
  export LD_LIBRARY_PATH="/usr/local/nvidia/lib64:/opt/$(hf_of LIVE)/lib"
  export CUDA_VISIBLE_DEVICES="$(aws_of LIVE)"
  export PYTHONPATH="/srv/$(ghp_of LIVE):$(url_of LIVE)"
  export CUDA_HOME="/opt/$(ghp_of LIVE)" NVIDIA_VISIBLE_DEVICES="$(aws_of LIVE)"
  export NVIDIA_DRIVER_CAPABILITIES="compute,$(hf_of LIVE)" TORCH_CUDA_ARCH_LIST="9.0 $(ghp_of LIVE)"
  export PATH="/opt/$(hf_of LIVE)/bin:$PATH" VIRTUAL_ENV="/venv/$(aws_of LIVE)" CONDA_PREFIX="$(url_of LIVE)"
  every_format live --root "$TMP/bundle/rootfs" --no-cuda
  echo "$checks $failures" >"$TMP/live.counts"
)
read -r live_checks live_failures <"$TMP/live.counts"
checks=$((checks + live_checks)); failures=$((failures + live_failures))
expect_out live-json "env:LD_LIBRARY_PATH"  # the variables were read, and reported

# --- a pre-flight: the bundle's config.json (process.env), and an OCI image config file ---
"$PY" - "$TMP/bundle/config.json" "$(hf_of IMAGE)" "$(aws_of IMAGE)" "$(ghp_of IMAGE)" "$(url_of IMAGE)" <<'EOF'
import json, sys
path, hf, aws, ghp, url = sys.argv[1:]
config = json.load(open(path))
config["process"]["env"] += ["LD_LIBRARY_PATH=/usr/local/cuda/lib64:/opt/%s/lib" % hf, "CUDA_VISIBLE_DEVICES=" + aws,
                             "PYTHONPATH=/srv/%s:%s" % (ghp, url), "NVIDIA_DRIVER_CAPABILITIES=compute,utility," + hf,
                             "CUDA_HOME=/opt/" + ghp, "VIRTUAL_ENV=" + url]
json.dump(config, open(path, "w"))
EOF
every_format image --root "$TMP/bundle/rootfs" --target-gpu H200 --target-driver 580.95.05
expect_out image-json '"mode": "preflight"'
"$PY" - "$TMP/image-config.json" "$(hf_of OCI)" "$(aws_of OCI)" "$(ghp_of OCI)" "$(url_of OCI)" <<'EOF'
import json, sys
path, hf, aws, ghp, url = sys.argv[1:]
env = ["PATH=/usr/bin:/opt/%s/bin" % hf, "LD_LIBRARY_PATH=/opt/%s/lib" % ghp, "CUDA_VISIBLE_DEVICES=" + aws,
       "PYTHONPATH=" + url, "NVIDIA_REQUIRE_CUDA=cuda>=12.0 " + hf, "CUDA_VERSION=12.4.1-" + ghp]
json.dump({"architecture": "amd64", "os": "linux", "config": {"Env": env}}, open(path, "w"))
EOF
every_format oci --root "$TMP/bundle/rootfs" --target-gpu sm_90 --target-driver 580.95.05 --image-config "$TMP/image-config.json"

# --- replay: a capture's variables, and its files (what labels and GPU rows carry) ---
BASE=$HOSTS/h200-live-full.capture.json
UUID=GPU-4d968105-8e4b-c676-0e79-49f556158d9a
"$PY" - "$BASE" "$TMP/env.capture.json" "$(hf_of REPLAY)" "$(aws_of REPLAY)" "$(ghp_of REPLAY)" "$(url_of REPLAY)" <<'EOF'
import json, sys
base, out, hf, aws, ghp, url = sys.argv[1:]
c = json.load(open(base))
c["env"].update({"LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/opt/%s/lib" % hf, "CUDA_VISIBLE_DEVICES": aws,
                 "PYTHONPATH": "/srv/%s:%s" % (ghp, url), "NVIDIA_DRIVER_CAPABILITIES": "compute,utility," + ghp,
                 "CUDA_HOME": "/opt/" + hf, "NVIDIA_VISIBLE_DEVICES": url})
json.dump(c, open(out, "w"))
EOF
every_format replay replay "$TMP/env.capture.json"
"$PY" - "$BASE" "$TMP/files.capture.json" "$UUID" "$(hf_of FILES)" "$(aws_of FILES)" "$(ghp_of FILES)" "$(url_of FILES)" <<'EOF'
import json, sys
base, out, uuid, hf, aws, ghp, url = sys.argv[1:]
text = open(base).read().replace(uuid, ghp).replace("NVIDIA H200", "NVIDIA H200 %s %s" % (hf, url))
c = json.loads(text)
c["uname"]["nodename"] = "node-" + aws
json.dump(c, open(out, "w"))
EOF
every_format files replay "$TMP/files.capture.json"
expect_out files-prom 'uuid="<secret>"'  # the label is there, scrubbed

# --- fleet and diff over another node's report, edited by hand ---
"$GD" replay "$HOSTS/h200-live-cvd99.capture.json" --json --no-capture >"$TMP/cvd99.json" 2>/dev/null
plant_report() {  # IN OUT TAG
  "$PY" - "$1" "$2" "$(hf_of "$3")" "$(aws_of "$3")" "$(ghp_of "$3")" "$(url_of "$3")" <<'EOF'
import json, sys
src, out, hf, aws, ghp, url = sys.argv[1:]
r = json.load(open(src))
r["run"]["host"] = "node-" + aws
f = r["findings"][0]
f["title"] += " " + hf
f["message"] += " " + ghp
f["fix"] = ["pip install --index-url %s torch %s" % (url, aws)] + f["fix"]
f["evidence"][0]["value"] = ghp
r["facts"]["env.ld_library_path"]["value"] = "/opt/%s/lib:%s" % (hf, url)
r["facts"]["env.cuda_visible_devices"]["value"] = aws + "," + ghp
r["facts"]["env.ld_preload"] = {"state": "present", "type": "string", "value": url, "source": "env:LD_PRELOAD"}
json.dump(r, open(out, "w"), indent=2)
EOF
}
mkdir -p "$TMP/fleet"
plant_report "$TMP/cvd99.json" "$TMP/fleet/a.json" FLEET
cp "$TMP/cvd99.json" "$TMP/fleet/b.json"
run_gd fleet-text fleet "$TMP/fleet"; keep fleet-text
run_gd fleet-verbose fleet -v "$TMP/fleet"; keep fleet-verbose
run_gd fleet-json fleet --json "$TMP/fleet"; keep fleet-json
expect_out fleet-text '<secret>'  # the planted finding is listed, scrubbed
plant_report "$TMP/cvd99.json" "$TMP/diff-a.json" DIFF
run_gd diff-text diff "$TMP/diff-a.json" "$TMP/cvd99.json"; keep diff-text
run_gd diff-verbose diff -v "$TMP/diff-a.json" "$TMP/cvd99.json"; keep diff-verbose
run_gd diff-json diff --json "$TMP/diff-a.json" "$TMP/cvd99.json"; keep diff-json
run_gd diff-capture diff "$TMP/env.capture.json" "$BASE"; keep diff-capture  # a capture's side is replayed
expect_rc diff-text 1
expect_out diff-text 'env.ld_library_path'

# --- every byte written, for every token ---
checks=$((checks + 1))
leaks=$(grep -rlF -f "$TMP/needles" "$OUT" | sed "s|$OUT/||" | sort | tr '\n' ' ')
if [ -n "$leaks" ]; then
  fail "tokens in the output of: $leaks"
  for tag in $SOURCES; do
    hits=$(grep -rlF -f <(grep -F "$tag" "$TMP/needles") "$OUT" | sed "s|$OUT/||" | sort | tr '\n' ' ')
    [ -z "$hits" ] || echo "    source $tag leaked in: $hits"
  done
fi
# The JSON outputs decoded (a capture keeps binary reads as base64).
for file in "$OUT"/*-json.out; do
  checks=$((checks + 1))
  if decoded_strings "$file" >"$file.strings" 2>/dev/null; then
    ! grep -qF -f "$TMP/needles" "$file.strings" || fail "tokens in the decoded strings of $(basename "$file")"
  fi
done

# --- what the rules and users need is kept ---
# A GPU UUID in CUDA_VISIBLE_DEVICES is no secret: the variable's fact keeps it.
"$PY" - "$BASE" "$TMP/uuid.capture.json" "$UUID" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["env"]["CUDA_VISIBLE_DEVICES"] = sys.argv[3]
json.dump(c, open(sys.argv[2], "w"))
EOF
run_gd uuid replay "$TMP/uuid.capture.json" --json --no-capture
expect_fact uuid env.cuda_visible_devices "\"$UUID\""
# A token in a variable is answered as a plain word in its place: the same findings.
for word in "$(hf_of RULES)" plainword; do
  "$PY" - "$BASE" "$TMP/$word.capture.json" "$word" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["env"]["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64:/opt/%s/lib:/usr/local/nvidia/lib" % sys.argv[3]
c["env"]["CUDA_VISIBLE_DEVICES"] = "0,%s" % sys.argv[3]
json.dump(c, open(sys.argv[2], "w"))
EOF
  "$GD" replay "$TMP/$word.capture.json" --json --no-capture >"$TMP/$word.report.json" 2>/dev/null
done
checks=$((checks + 1))
"$PY" - "$TMP/$(hf_of RULES).report.json" "$TMP/plainword.report.json" <<'EOF' || fail "a planted token changed the rules' answers"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ids = lambda r: [(f["id"], f["severity"]) for f in r["findings"]]
states = lambda r: {k: v["state"] for k, v in r["facts"].items()}
assert ids(a) == ids(b), (ids(a), ids(b))
assert states(a) == states(b), {k for k in states(a) if states(a)[k] != states(b).get(k)}
assert "<secret>" in a["facts"]["env.ld_library_path"]["value"], a["facts"]["env.ld_library_path"]
EOF
# No real capture's report has anything scrubbed (torch's 40-hex git_version, NVRM function
# names and GPU UUIDs are not secrets).
for capture in "$HOSTS"/*.capture.json; do
  name=$(basename "$capture" .capture.json)
  checks=$((checks + 1))
  "$GD" replay "$capture" --json >"$TMP/real-$name.json" 2>/dev/null
  ! grep -q '<secret>' "$TMP/real-$name.json" || fail "$name: its report has <secret>: $(grep -o '.\{60\}<secret>.\{20\}' "$TMP/real-$name.json" | head -3)"
done

finish
