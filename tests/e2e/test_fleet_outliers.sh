# gpudoctor fleet's odd one out (issue 27 item 1): 100 nodes made at test time from one real
# report (a replay of a captured H200 host with PyTorch and the nvidia-* wheels), composed as a
# fleet goes wrong: 3 nodes left on another driver, 1 with another NCCL wheel, 1 without
# nvidia_peermem. Each is named as an outlier with its count; the facts that differ by nature
# (host name, GPU UUID and bus id, timings, the cgroup path) differ on every node and never count;
# a uniform fleet has none; --reference finds the drift the whole fleet shares.
source "$(dirname "$0")/lib.sh"

"$GD" replay "$HOSTS/h200-live-ml.capture.json" --json --no-capture >"$TMP/base.json" 2>"$TMP/base.err"
rc=$?
checks=$((checks + 1))
[ "$rc" -le 1 ] && [ -s "$TMP/base.json" ] || fail "replay of h200-live-ml: exit $rc"

# compose BASE OUT-DIR KIND: 100 reports gpu1..gpu100. KIND "skewed" changes the odd nodes;
# "uniform" only what differs by nature on every node.
compose() {
  python3 - "$@" <<'PY'
import copy, json, os, sys
base = json.load(open(sys.argv[1]))
out, kind = sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)

def set_fact(r, name, value):
    r["facts"][name]["state"] = "present"
    r["facts"][name]["value"] = value
    r["facts"][name].pop("reason", None)

# The fleet has GPUDirect RDMA: nvidia_peermem is loaded on every node but one.
set_fact(base, "kmod.nvidia_peermem.loaded", True)
for i in range(1, 101):
    r = copy.deepcopy(base)
    node = "gpu%d" % i
    r["run"]["host"] = node
    # Differ by nature on every node: never an outlier.
    set_fact(r, "host.name", node)
    set_fact(r, "cuda.device.0.uuid", "GPU-%08x-0000-0000-0000-000000000000" % i)
    set_fact(r, "cuda.device.0.pci_bus_id", "0000:%02x:00.0" % i)
    set_fact(r, "cuda.helper.duration_ms", 300 + i)
    set_fact(r, "cuda.init.duration_ms", 100 + i)
    set_fact(r, "cgroup.path", "/slurm/job_%d" % (4000 + i))
    if kind == "skewed":
        if node in ("gpu17", "gpu33", "gpu90"):  # left behind by a partial upgrade
            for fact in ("kmod.nvidia.version", "kmod.nvidia.sysfs_version", "nvml.driver_version"):
                set_fact(r, fact, "570.86.15")
        if node == "gpu42":  # another NCCL wheel (NVIDIA/nccl#1267)
            set_fact(r, "wheels.nvidia", [w if not w.startswith("nvidia-nccl") else "nvidia-nccl-cu13 2.27.3"
                                          for w in r["facts"]["wheels.nvidia"]["value"]])
        if node == "gpu64":  # no GPUDirect RDMA on this one (NVIDIA/nccl#897)
            set_fact(r, "kmod.nvidia_peermem.loaded", False)
    json.dump(r, open(os.path.join(out, node + ".json"), "w"), indent=2)
PY
}
compose "$TMP/base.json" "$TMP/skewed" skewed
compose "$TMP/base.json" "$TMP/uniform" uniform
checks=$((checks + 1))
[ "$(ls "$TMP/skewed" | wc -l)" = 100 ] && [ "$(ls "$TMP/uniform" | wc -l)" = 100 ] || fail "the fleets were not made"
base_driver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"]["kmod.nvidia.version"]["value"])' "$TMP/base.json")
base_nccl=$(python3 -c 'import json,sys; print([w for w in json.load(open(sys.argv[1]))["facts"]["wheels.nvidia"]["value"] if w.startswith("nvidia-nccl")][0])' "$TMP/base.json")
checks=$((checks + 1))
[ -n "$base_driver" ] && [ -n "$base_nccl" ] || fail "the base report has no driver or NCCL wheel"

# Text: each odd fact with the odd nodes named and counted, the majority's value last.
run_gd text fleet "$TMP/skewed"
expect_rc text 0
expect_out text '^100 nodes \(100 reports\): '
expect_out text '^4 facts differ between the nodes \(the odd ones first, the majority.s value last\):$'
expect_out text "^  kmod\\.nvidia\\.version: 570\\.86\\.15 on 3 nodes: gpu17, gpu33, gpu90; ${base_driver//./\\.} on 97 nodes$"
expect_out text "^  nvml\\.driver_version: 570\\.86\\.15 on 3 nodes: gpu17, gpu33, gpu90; ${base_driver//./\\.} on 97 nodes$"
expect_out text "^  kmod\\.nvidia_peermem\\.loaded: false on 1 node: gpu64; true on 99 nodes$"
expect_out text "^  wheels\\.nvidia\\[nvidia-nccl\\*\\]: nvidia-nccl-cu13 2\\.27\\.3 on 1 node: gpu42; ${base_nccl//./\\.} on 99 nodes$"
# Never what differs by nature, though it differs on every node.
expect_no_out text 'host\.name|uuid|pci_bus_id|duration_ms|cgroup\.path'

# JSON: the contract.
run_gd json fleet "$TMP/skewed" --json
expect_rc json 0
expect_json json 'f["compared_with"], [o["fact"] for o in f["outliers"]]' \
  "('majority', ['kmod.nvidia.version', 'kmod.nvidia_peermem.loaded', 'nvml.driver_version', 'wheels.nvidia[nvidia-nccl*]'])"
expect_json json '[(v["value"], v["count"], v["nodes"], v["expected"]) for v in f["outliers"][0]["values"]]' \
  "[('570.86.15', 3, ['gpu17', 'gpu33', 'gpu90'], False), ('$base_driver', 97, [], True)]"
expect_json json '[(v["value"], v["count"], v["nodes"]) for v in f["outliers"][1]["values"]]' \
  "[('false', 1, ['gpu64']), ('true', 99, [])]"
expect_json json '[(v["value"], v["count"], v["nodes"]) for v in f["outliers"][3]["values"]]' \
  "[('nvidia-nccl-cu13 2.27.3', 1, ['gpu42']), ('$base_nccl', 99, [])]"
expect_json json 'f["outliers"][0]["reference"], f["nodes"]' '(None, 100)'

# The same fleet as JSON Lines on standard input.
for f in "$TMP"/skewed/*.json; do python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$f"; done \
  >"$TMP/skewed.jsonl"
"$GD" fleet - --json <"$TMP/skewed.jsonl" >"$TMP/stdin.out" 2>"$TMP/stdin.err"
rc=$?
expect_rc stdin 0
expect_json stdin '[(o["fact"], [(v["value"], v["count"]) for v in o["values"]]) for o in f["outliers"]] == [(o["fact"], [(v["value"], v["count"]) for v in o["values"]]) for o in json.load(open(sys.argv[1].replace("stdin", "json")))["outliers"]]' True

# Markdown: the same facts, for a ticket.
run_gd md fleet "$TMP/skewed" --format markdown
expect_rc md 0
expect_out md '^- `kmod\.nvidia\.version`: 570\.86\.15 on 3 nodes: gpu17, gpu33, gpu90; '
expect_out md '^- `wheels\.nvidia\[nvidia-nccl\*\]`: nvidia-nccl-cu13 2\.27\.3 on 1 node: gpu42; '

# Ten names at most in the text, then how many more; -v names them all.
mkdir -p "$TMP/many"
cp "$TMP"/skewed/*.json "$TMP/many/"
python3 - "$TMP/many" <<'PY'
import json, os, sys
for i in range(1, 13):  # 12 more nodes left behind
    p = os.path.join(sys.argv[1], "gpu%d.json" % (i + 1))
    r = json.load(open(p))
    r["facts"]["kmod.nvidia.version"]["value"] = "570.86.15"
    json.dump(r, open(p, "w"))
PY
run_gd many fleet "$TMP/many"
expect_out many "^  kmod\\.nvidia\\.version: 570\\.86\\.15 on 15 nodes: gpu2, gpu3, gpu4, gpu5, gpu6, gpu7, gpu8, gpu9, gpu10, gpu11 and 5 more; "
run_gd many_v fleet "$TMP/many" -v
expect_out many_v "^  kmod\\.nvidia\\.version: 570\\.86\\.15 on 15 nodes: gpu2, gpu3, .*, gpu13, gpu17, gpu33, gpu90; "

# A uniform fleet: no outliers, though every node's name, UUID, bus id and timings differ.
run_gd uniform fleet "$TMP/uniform" --json
expect_rc uniform 0
expect_json uniform 'f["outliers"], f["nodes"]' '([], 100)'
run_gd uniform_text fleet "$TMP/uniform"
expect_no_out uniform_text 'differ between the nodes'

# --reference: the whole fleet on one driver hides the drift from the majority; a known-good
# value names all 100 nodes.
printf '{"kmod.nvidia.version": "580.95.05", "kmod.nvidia_peermem.loaded": true}\n' >"$TMP/good.json"
run_gd ref fleet "$TMP/uniform" --reference "$TMP/good.json" --json
expect_rc ref 0
expect_json ref 'f["compared_with"], [o["fact"] for o in f["outliers"]]' "('reference', ['kmod.nvidia.version'])"
expect_json ref '[(v["value"], v["count"], len(v["nodes"]), v["expected"]) for v in f["outliers"][0]["values"]]' \
  "[('$base_driver', 100, 100, False), ('580.95.05', 0, 0, True)]"
expect_json ref 'f["outliers"][0]["reference"]' '580.95.05'
run_gd ref_text fleet "$TMP/uniform" --reference "$TMP/good.json"
expect_out ref_text "^  kmod\\.nvidia\\.version: ${base_driver//./\\.} on 100 nodes: gpu1, gpu2, .* and 90 more; 580\\.95\\.05 \\(the reference\\) on 0 nodes$"
# ... and a good node's report as the reference: every curated fact it has is the known-good one.
python3 - "$TMP/base.json" "$TMP/good-report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["facts"]["kmod.nvidia.version"]["value"] = "580.95.05"
r["facts"]["kmod.nvidia_peermem.loaded"].update(state="present", value=True)
json.dump(r, open(sys.argv[2], "w"))
PY
run_gd ref_report fleet "$TMP/skewed" --reference "$TMP/good-report.json" --json
expect_rc ref_report 0
expect_json ref_report '[(o["fact"], [(v["value"], v["count"], v["expected"]) for v in o["values"]]) for o in f["outliers"]][:2]' \
  "[('kmod.nvidia.version', [('570.86.15', 3, False), ('$base_driver', 97, False), ('580.95.05', 0, True)]), ('kmod.nvidia_peermem.loaded', [('false', 1, False), ('true', 99, True)])]"

# A bad reference: one error line naming the file, exit 2, nothing on stdout.
echo 'not json' >"$TMP/bad.json"
printf '{"host.name": "gpu1"}' >"$TMP/volatile.json"
printf '{"format": "gpudoctor-capture", "schema_version": 1}' >"$TMP/capture.json"
for bad in bad volatile capture missing; do
  run_gd "ref_$bad" fleet "$TMP/uniform" --reference "$TMP/$bad.json"
  expect_rc "ref_$bad" 2
  expect_err "ref_$bad" "^gpudoctor: error: --reference $TMP/$bad\\.json: "
  checks=$((checks + 1))
  [ ! -s "$TMP/ref_$bad.out" ] || fail "ref_$bad: printed a fleet view"
done
expect_err ref_volatile 'host\.name differs from node to node by nature'
finish
