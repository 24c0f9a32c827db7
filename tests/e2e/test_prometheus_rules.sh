# deploy/prometheus/gpudoctor.rules.yml (issue 27 item 4): Debian's promtool accepts it, every
# alert has a severity, a summary, a description and a runbook_url naming a README section, and
# `promtool test rules` runs it on the real --format prometheus output of captured hosts (served
# as node_exporter's textfile collector would: instance and job labels added): a healthy node, a
# failing one (a stale uvm major: an error finding and a failed GPU), one whose GPU CUDA never
# tried, one whose GPU another job holds, one that stopped running gpudoctor, and a fleet sweep
# of them. Each alert fires where it must, after its `for`, and stays quiet elsewhere.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's, with python3-prometheus-client and python3-yaml
CHECK=$SRC/tests/e2e/prometheus_rules_check.py
RULES=$SRC/deploy/prometheus/gpudoctor.rules.yml

command -v promtool >/dev/null || { echo "SKIP: no promtool (apt-get install prometheus; toolchain/install.sh does)"; exit 125; }
$PY -c 'import prometheus_client, yaml' 2>/dev/null ||
  { echo "SKIP: /usr/bin/python3 lacks prometheus_client or yaml (apt-get install python3-prometheus-client python3-yaml)"; exit 125; }

checks=$((checks + 1))
promtool check rules "$RULES" >"$TMP/check.txt" 2>&1 || fail "promtool check rules: $(cat "$TMP/check.txt")"
checks=$((checks + 1))
$PY "$CHECK" runbooks "$RULES" "$SRC/README.md" >"$TMP/runbooks.txt" 2>&1 || fail "annotations: $(cat "$TMP/runbooks.txt")"

# The nodes: each captured host replayed as the recipes run it (--scope node).
declare -A node=([healthy]=h200-live-kernel [failing]=lxc-stale-uvm-major [unproven]=upgrade-without-reboot
  [busy]=h200-live-busy-oom [stale]=h200-live-kernel)
specs=()
mkdir -p "$TMP/sweep" "$TMP/unit"
for name in "${!node[@]}"; do
  run_gd "$name" replay "$HOSTS/${node[$name]}.capture.json" --scope node --format prometheus
  checks=$((checks + 1))
  [ "$rc" -le 1 ] && [ -s "$TMP/$name.out" ] || fail "$name: exit $rc"
  spec="$name=$TMP/$name.out"
  [ "$name" = stale ] && spec="$spec:frozen"
  specs+=("$spec")
  # The sweep: the same hosts' reports under the node names.
  "$GD" replay "$HOSTS/${node[$name]}.capture.json" --scope node --json --no-capture 2>/dev/null |
    $PY -c 'import json,sys; r=json.load(sys.stdin); r["run"]["host"]=sys.argv[1]; json.dump(r, sys.stdout)' "$name" \
      >"$TMP/sweep/$name.json"
done
run_gd fleet fleet "$TMP/sweep" --scope node --format prometheus
expect_rc fleet 0
run_gd fleet_json fleet "$TMP/sweep" --scope node --json
expect_json fleet_json 'f["nodes"]' 5

# Where node_exporter is installed, the nodes' series are its scrapes of each file as the
# textfile collector serves it: node_textfile_mtime_seconds with its real `file` label too.
if command -v prometheus-node-exporter >/dev/null && command -v curl >/dev/null; then
  port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$TMP/collector"
  prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$TMP/collector" >"$TMP/exporter.log" 2>&1 &
  exporter=$!
  trap 'kill $exporter 2>/dev/null; wait $exporter 2>/dev/null; rm -rf "$TMP"' EXIT
  for i in "${!specs[@]}"; do
    spec=${specs[$i]} name=${specs[$i]%%=*}
    cp "$TMP/$name.out" "$TMP/collector/gpudoctor.prom"
    ok=0
    for _ in $(seq 50); do
      curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/$name.scrape" 2>/dev/null && { ok=1; break; }
      sleep 0.1
    done
    checks=$((checks + 1))
    [ $ok = 1 ] && grep -q '^node_textfile_mtime_seconds{file=".*/gpudoctor.prom"}' "$TMP/$name.scrape" &&
      grep -q '^node_textfile_scrape_error 0$' "$TMP/$name.scrape" || fail "$name: node_exporter's scrape: $(tail -3 "$TMP/exporter.log")"
    specs[$i]=${spec/$TMP\/$name.out/$TMP\/$name.scrape}
  done
  kill $exporter; wait $exporter 2>/dev/null
else
  echo "NOTE: no prometheus-node-exporter: node_textfile_mtime_seconds is written as node_exporter 1.5.0 serves it"
fi

checks=$((checks + 1))
$PY "$CHECK" unittest "$RULES" "$TMP/fleet_json.out" "$TMP/unit" "${specs[@]}" "FLEET=$TMP/fleet.out" >"$TMP/gen.txt" 2>&1 ||
  fail "writing the promtool test: $(cat "$TMP/gen.txt")"
grep '^NOTE' "$TMP/gen.txt"
if [ -n "${exporter:-}" ]; then
  checks=$((checks + 1))
  grep -qF "node_textfile_mtime_seconds{file=\"$TMP/collector/gpudoctor.prom\",instance=\"stale\"" "$TMP/unit/test.yml" ||
    fail "the promtool test does not run on node_exporter's scrapes"
fi
checks=$((checks + 1))
(cd "$TMP/unit" && promtool test rules test.yml) >"$TMP/test.txt" 2>&1 ||
  { fail "promtool test rules:"; head -60 "$TMP/test.txt"; }

# The test fails when a rule breaks: an alert that fires on every node is caught.
sed 's/expr: gpudoctor_gpu_proven == 0/expr: gpudoctor_gpu_proven >= 0/' "$TMP/unit/rules.yml" >"$TMP/unit/broken.yml"
sed 's/rules.yml/broken.yml/' "$TMP/unit/test.yml" >"$TMP/unit/broken_test.yml"
checks=$((checks + 1))
! (cd "$TMP/unit" && promtool test rules broken_test.yml) >"$TMP/broken.txt" 2>&1 ||
  fail "promtool test rules passes a GpudoctorGpuFailed that fires on working GPUs"
finish
