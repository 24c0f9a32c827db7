# deploy/grafana/gpudoctor-dashboard.json (issue 27 item 4): a dashboard Grafana imports (its
# JSON model: schemaVersion, a Prometheus datasource variable, panels with grid positions and
# targets), whose every query parses (promtool check rules, the queries as recording rules) and
# names only families that real `--format prometheus` outputs have, node and fleet; it shows
# nodes by verdict, findings by id, GPUs proven and run time. The alerting rules' queries are
# held to the same names (node_exporter's textfile mtime aside). A misspelt name is caught.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's, with python3-prometheus-client and python3-yaml
CHECK=$SRC/tests/e2e/grafana_dashboard_check.py
DASHBOARD=$SRC/deploy/grafana/gpudoctor-dashboard.json
RULES=$SRC/deploy/prometheus/gpudoctor.rules.yml

$PY -c 'import prometheus_client, yaml' 2>/dev/null ||
  { echo "SKIP: /usr/bin/python3 lacks prometheus_client or yaml (apt-get install python3-prometheus-client python3-yaml)"; exit 125; }

# The real metrics: captured hosts (healthy, failing, busy, never tried, eight GPUs) and a fleet of them.
metrics=()
mkdir -p "$TMP/sweep"
for capture in h200-live-kernel lxc-stale-uvm-major h200-live-busy-oom upgrade-without-reboot fake-eight-one-stuck; do
  run_gd "$capture" replay "$HOSTS/$capture.capture.json" --format prometheus
  metrics+=("$TMP/$capture.out")
  "$GD" replay "$HOSTS/$capture.capture.json" --json --no-capture >"$TMP/sweep/$capture.json" 2>/dev/null
done
run_gd fleet fleet "$TMP/sweep" --format prometheus
expect_rc fleet 0
metrics+=("$TMP/fleet.out")

checks=$((checks + 1))
$PY "$CHECK" model "$DASHBOARD" >"$TMP/model.txt" 2>&1 || fail "dashboard model: $(cat "$TMP/model.txt")"
checks=$((checks + 1))
$PY "$CHECK" names "$DASHBOARD" "${metrics[@]}" >"$TMP/names.txt" 2>&1 || fail "dashboard names: $(cat "$TMP/names.txt")"
# What the issue asks to see, each from its family.
for family in gpudoctor_fleet_nodes gpudoctor_finding gpudoctor_gpu_proven gpudoctor_run_duration_seconds; do
  checks=$((checks + 1))
  grep -q "^names used: .*\b$family\b" "$TMP/names.txt" || fail "no panel shows $family"
done
checks=$((checks + 1))
grep -q '"expr": "sort_desc(count by (id, severity, action) (gpudoctor_finding))"' "$DASHBOARD" || fail "no findings-by-id query"
checks=$((checks + 1))
$PY "$CHECK" names "$RULES" "${metrics[@]}" --also node_textfile_mtime_seconds >"$TMP/rule_names.txt" 2>&1 ||
  fail "alerting rule names: $(cat "$TMP/rule_names.txt")"

if command -v promtool >/dev/null; then
  $PY "$CHECK" rules "$DASHBOARD" "$TMP/queries.yml"
  checks=$((checks + 1))
  promtool check rules "$TMP/queries.yml" >"$TMP/queries.txt" 2>&1 || fail "a dashboard query does not parse: $(cat "$TMP/queries.txt")"
else
  skip "no promtool to parse the queries (apt-get install prometheus)"
fi

# The checks fail when they must: a misspelt family, a panel without targets.
sed 's/gpudoctor_gpu_proven == 1/gpudoctor_gpus_proven == 1/' "$DASHBOARD" >"$TMP/misspelt.json"
checks=$((checks + 1))
! $PY "$CHECK" names "$TMP/misspelt.json" "${metrics[@]}" >"$TMP/misspelt.txt" 2>&1 || fail "a misspelt family passes"
grep -q 'gpudoctor_gpus_proven is no family' "$TMP/misspelt.txt" || fail "the misspelt family is not named: $(head -3 "$TMP/misspelt.txt")"
$PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d["panels"][0]["targets"]=[]; d["schemaVersion"]="39"; json.dump(d, open(sys.argv[2], "w"))' \
  "$DASHBOARD" "$TMP/broken.json"
checks=$((checks + 1))
! $PY "$CHECK" model "$TMP/broken.json" >"$TMP/broken.txt" 2>&1 || fail "a panel without targets passes"
checks=$((checks + 1))
[ "$(grep -c 'no targets\|schemaVersion' "$TMP/broken.txt")" = 2 ] || fail "broken dashboard: $(cat "$TMP/broken.txt")"
finish
