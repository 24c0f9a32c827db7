# gpudoctor fleet --format prometheus (issue 27 item 3): a fleet of replayed hosts as gauges that
# Debian's promtool and the Python client's parser accept, with exactly README's "Fleet metrics"
# families and labels, and values that are the fleet JSON's: nodes by verdict, one sample per
# root-cause group, the reports, duplicates and unreadable inputs. Node names never become labels.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's, with python3-prometheus-client
CHECK=$SRC/tests/e2e/prometheus_check.py

if ! $PY -c 'import prometheus_client' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no prometheus_client (apt-get install python3-prometheus-client)"
  exit 125
fi
value() {  # NAME FAMILY [label=value ...] EXPECTED
  checks=$((checks + 1))
  local name=$1 expected=${*: -1} got
  got=$($PY "$CHECK" value "$TMP/$name.out" "${@:2:$#-2}" 2>&1)
  [ "$got" = "$expected" ] || fail "$name: ${*:2:$#-2} is $got, expected $expected"
}

# The sweep: 6 healthy nodes, 3 with a stale uvm major, 2 upgraded without a reboot, one node
# reported twice, one file that is no report.
mkdir -p "$TMP/base" "$TMP/sweep"
for capture in h200-live-kernel lxc-stale-uvm-major upgrade-without-reboot; do
  "$GD" replay "$HOSTS/$capture.capture.json" --json --no-capture >"$TMP/base/$capture.json" 2>/dev/null
done
copy() {  # REPORT OUT NODE
  $PY -c 'import json,sys; r=json.load(open(sys.argv[1])); r["run"]["host"]=sys.argv[3]; json.dump(r, open(sys.argv[2], "w"))' "$@"
}
for i in 1 2 3 4 5 6; do copy "$TMP/base/h200-live-kernel.json" "$TMP/sweep/gpu$i.json" "node-$i"; done
for i in 7 8 9; do copy "$TMP/base/lxc-stale-uvm-major.json" "$TMP/sweep/gpu$i.json" "node-$i"; done
for i in 10 11; do copy "$TMP/base/upgrade-without-reboot.json" "$TMP/sweep/gpu$i.json" "node-$i"; done
copy "$TMP/base/h200-live-kernel.json" "$TMP/sweep/gpu1-again.json" node-1
echo '{"not": "a report"}' >"$TMP/sweep/junk.json"

run_gd prom fleet "$TMP/sweep" --format prometheus
expect_rc prom 1  # the junk file: the view is incomplete, as the text's exit code says
expect_no_out prom 'node-[0-9]'
if command -v promtool >/dev/null; then
  checks=$((checks + 1))
  promtool check metrics <"$TMP/prom.out" >"$TMP/promtool.txt" 2>&1 || fail "promtool check metrics: $(head -5 "$TMP/promtool.txt")"
else
  skip "no promtool (apt-get install prometheus)"
fi
checks=$((checks + 1))
$PY "$CHECK" contract-in "### Fleet metrics" "$SRC/README.md" "$TMP/prom.out" >"$TMP/contract.txt" 2>&1 ||
  fail "contract: $(head -20 "$TMP/contract.txt")"

value prom gpudoctor_fleet_info version=0.1.0 metrics_version=1 scope=all 1.0
value prom gpudoctor_fleet_nodes verdict=healthy 6.0
value prom gpudoctor_fleet_nodes verdict=warning 0.0
value prom gpudoctor_fleet_nodes verdict=error 5.0
value prom gpudoctor_fleet_group_nodes root_cause= severity=ok action=none 6.0
value prom gpudoctor_fleet_group_nodes root_cause=devices.uvm-wrong-major severity=error action=fix-config 3.0
value prom gpudoctor_fleet_group_nodes root_cause=driver.userspace-version-mismatch severity=error action=reboot 2.0
value prom gpudoctor_fleet_reports 12.0
value prom gpudoctor_fleet_duplicate_nodes 1.0
value prom gpudoctor_fleet_unreadable_inputs 1.0
checks=$((checks + 1))
stamp=$($PY "$CHECK" value "$TMP/prom.out" gpudoctor_fleet_last_run_timestamp_seconds)
$PY -c 'import sys, time; assert abs(time.time() - float(sys.argv[1])) < 600' "$stamp" || fail "timestamp $stamp is not now"

# Every group of the JSON is one sample with its count, and nothing else is.
run_gd json fleet "$TMP/sweep" --json
checks=$((checks + 1))
$PY - "$TMP/json.out" "$TMP/prom.out" <<'PYEOF' || fail "the metrics' groups are not the JSON's"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
fleet = json.load(open(sys.argv[1]))
want = sorted(((g["root_cause"] or ""), g["severity"], g["action"], float(g["count"])) for g in fleet["groups"])
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[2]).read())}
got = sorted((s.labels["root_cause"], s.labels["severity"], s.labels["action"], s.value)
             for s in families["gpudoctor_fleet_group_nodes"].samples)
assert got == want, (got, want)
assert sum(s.value for s in families["gpudoctor_fleet_nodes"].samples) == fleet["nodes"]
PYEOF

# --scope node says so; a fleet read from standard input; a format fleet does not print.
run_gd node fleet "$TMP/sweep/gpu1.json" "$TMP/sweep/gpu7.json" --scope node --format prometheus
expect_rc node 0
value node gpudoctor_fleet_info version=0.1.0 metrics_version=1 scope=node 1.0
value node gpudoctor_fleet_nodes verdict=error 1.0
cat "$TMP/sweep/gpu7.json" | "$GD" fleet - --format prometheus >"$TMP/stdin.out" 2>"$TMP/stdin.err"
rc=$?
expect_rc stdin 0
value stdin gpudoctor_fleet_group_nodes root_cause=devices.uvm-wrong-major severity=error action=fix-config 1.0
run_gd npd fleet "$TMP/sweep" --format npd
expect_rc npd 2
expect_err npd '^gpudoctor: error: fleet prints text, --format json, --format markdown or --format prometheus'
# README's sweep line, as written there (paths moved into $TMP): the sweep has an unreadable
# file (exit 1), and the file is still written whole, under its .prom name only.
checks=$((checks + 1))
line=$($PY - "$SRC/README.md" <<'PYEOF'
import sys
text = open(sys.argv[1]).read().split("### Prometheus alerts and Grafana\n", 1)[1].split("\n### ", 1)[0]
print([l for l in text.splitlines() if l.startswith("gpudoctor fleet sweep --format prometheus")][0])
PYEOF
) || fail "README has no sweep line under 'Prometheus alerts and Grafana'"
mkdir -p "$TMP/textfiles"
line=${line//\/var\/lib\/prometheus\/node-exporter/$TMP\/textfiles}
line=${line/gpudoctor fleet sweep/$GD fleet $TMP/sweep}
bash -c "$line" >"$TMP/recipe.out" 2>"$TMP/recipe.err"
rc=$?
sanitizer_clean recipe
checks=$((checks + 1))
[ "$rc" = 0 ] && [ "$(ls "$TMP/textfiles")" = gpudoctor-fleet.prom ] || fail "README's sweep line: exit $rc, wrote $(ls "$TMP/textfiles")"
cp "$TMP/textfiles/gpudoctor-fleet.prom" "$TMP/recipe_file.out" 2>/dev/null
value recipe_file gpudoctor_fleet_nodes verdict=error 5.0
finish
