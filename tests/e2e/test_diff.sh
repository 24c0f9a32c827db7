# gpudoctor diff A B (issue 16): two nodes' reports, or captures (replayed first), compared:
# the findings only one has, then the facts that differ by layer in the overview's order, with
# both values; volatile facts (timings, PIDs, UUIDs) only with -v. Bad inputs: one error line.
source "$(dirname "$0")/lib.sh"

edit() {  # IN OUT PYTHON-STATEMENTS over the report `r`
  python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(r, open(sys.argv[2], "w"), indent=2)' "$@"
}

good=$HOSTS/h200-container-580.159.04.capture.json
stale=$HOSTS/lxc-stale-uvm-major.capture.json
"$GD" replay "$good" --json --no-capture >"$TMP/good.json" 2>/dev/null
"$GD" replay "$stale" --json --no-capture >"$TMP/stale.json" 2>/dev/null
edit "$TMP/good.json" "$TMP/good.json" 'r["run"]["host"] = "gpu017"'
edit "$TMP/stale.json" "$TMP/stale.json" 'r["run"]["host"] = "gpu018"'

# Twin nodes, one with a stale nvidia-uvm major: what only it has, then the device nodes.
run_gd text diff "$TMP/good.json" "$TMP/stale.json"
expect_rc text 1
expect_out text "^A: $TMP/good.json, node gpu017$"
expect_out text "^B: $TMP/stale.json, node gpu018$"
expect_out text '^Findings only in A: none$'
expect_out text '^Findings only in B \([0-9]+\):$'
expect_out text '^  error \[devices\.uvm-wrong-major\] '
expect_out text '^[0-9]+ facts? differs?, by layer:$'
expect_out text '^Device nodes$'
expect_out text '^  dev\.uvm\.major$'
expect_out text '^    A: [0-9]+$'
# Layers are printed in the overview's order.
checks=$((checks + 1))
order=$(grep -xE 'NVIDIA GPUs \(PCI\)|NVIDIA kernel module|Device nodes|Container / VM|Driver libraries|CUDA driver \(libcuda\)|NVML \(libnvidia-ml\)|Kernel log|Python / PyTorch|CUDA toolkit \(nvcc\)|Environment|System|Other' "$TMP/text.out" |
        python3 -c 'import sys
k = ["NVIDIA GPUs (PCI)", "NVIDIA kernel module", "Device nodes", "Container / VM", "Driver libraries", "CUDA driver (libcuda)", "NVML (libnvidia-ml)", "Kernel log", "Python / PyTorch", "CUDA toolkit (nvcc)", "Environment", "System", "Other"]
seen = [l.rstrip("\n") for l in sys.stdin]
print("ok" if seen and seen == sorted(seen, key=k.index) and len(set(seen)) == len(seen) else "bad: %s" % seen)')
[ "$order" = ok ] || fail "layers out of the overview's order: $order"

run_gd json diff "$TMP/good.json" "$TMP/stale.json" --json
expect_rc json 1
expect_json json 'd["diff_schema_version"], d["same"], d["a"]["host"], d["b"]["host"], d["a"]["kind"]' "(1, False, 'gpu017', 'gpu018', 'report')"
expect_json json 'd["findings"]["only_a"]' '[]'
expect_json json 'd["findings"]["only_b"][0]["id"], d["findings"]["only_b"][0]["action"]' "('devices.uvm-wrong-major', 'fix-config')"
expect_json json '[f["fact"] for l in d["facts"] if l["layer"] == "devices" for f in l["facts"]][:0] == [] and any(f["fact"] == "dev.uvm.major" for l in d["facts"] for f in l["facts"])' True
expect_json json 'all(not f["volatile"] for l in d["facts"] for f in l["facts"])' True
expect_json json 'd["facts_differing"] == sum(len(l["facts"]) for l in d["facts"])' True

# Captures are replayed first: the same diff as their reports'.
run_gd captures diff "$good" "$stale" --json
expect_rc captures 1
expect_json captures 'd["a"]["kind"], d["b"]["kind"]' "('capture', 'capture')"
checks=$((checks + 1))
a=$(json_field json '[d["findings"], d["facts"]]')
b=$(json_field captures '[d["findings"], d["facts"]]')
[ "$a" = "$b" ] || fail "diffing the captures differs from diffing their reports"

# The same node twice, only timings, UUIDs and PIDs changed: the same, unless -v.
edit "$TMP/good.json" "$TMP/again.json" '
r["run"]["host"] = "gpu099"
f = r["facts"]
f["cuda.helper.duration_ms"]["value"] = 4321
for name in f:
    if name.endswith(".uuid") and "value" in f[name]:
        f[name]["value"] = "GPU-00000000-1111-2222-3333-444444444444"
'
run_gd same diff "$TMP/good.json" "$TMP/again.json"
expect_rc same 0
expect_out same '^No facts differ but volatile ones: [0-9]+ volatile facts differ \(timings, PIDs, UUIDs, the host name\): -v shows them\.$'
run_gd same_v diff "$TMP/good.json" "$TMP/again.json" -v --json
expect_rc same_v 1
expect_json same_v 'sorted(f["fact"] for l in d["facts"] for f in l["facts"] if f["volatile"])[:1]' "['cuda.device.0.uuid']"
expect_json same_v '[f["b"]["value"] for l in d["facts"] for f in l["facts"] if f["fact"] == "cuda.helper.duration_ms"]' '[4321]'
run_gd self diff "$TMP/good.json" "$TMP/good.json"
expect_rc self 0
expect_out self '^No facts differ\.$'

# Bad inputs: one error line naming the file, exit 2, never a hang.
printf '{"schema_version": 1, "facts": {' >"$TMP/corrupt.json"
edit "$TMP/good.json" "$TMP/newer.json" 'r["schema_version"] = 2'
echo '{"name": "left-pad"}' >"$TMP/foreign.json"
mkfifo "$TMP/fifo.json"
for case in missing:"No such file or directory" corrupt:"not valid JSON" newer:"schema_version 2 is newer" \
            foreign:"not a gpudoctor report or capture" fifo:"a FIFO, not a regular file"; do
  name=${case%%:*}
  timeout 30 "$GD" diff "$TMP/good.json" "$TMP/$name.json" >"$TMP/bad_$name.out" 2>"$TMP/bad_$name.err"
  rc=$?; sanitizer_clean "bad_$name"
  expect_rc "bad_$name" 2
  expect_err_lines "bad_$name" 1
  expect_err "bad_$name" "^gpudoctor: error: $TMP/$name.json: ${case#*:}"
done
run_gd bad_format diff "$TMP/good.json" "$TMP/stale.json" --format npd
expect_rc bad_format 2
run_gd one_arg diff "$TMP/good.json"
expect_rc one_arg 2
run_gd textfile diff "$TMP/good.json" "$TMP/stale.json" --textfile "$TMP/diff.prom"
expect_rc textfile 2
expect_err textfile "^gpudoctor: error: --textfile writes a node's own metrics; diff prints on stdout only$"
# A diagnosis's options are refused, never silently ignored (a capture is replayed as it was made).
run_gd probe_opt diff "$TMP/good.json" "$TMP/stale.json" --python /usr/bin/python3
expect_rc probe_opt 2
expect_err probe_opt "^gpudoctor: error: --python is an option of check and replay: diff reads reports, it does not diagnose a host"
finish
