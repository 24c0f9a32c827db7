#!/usr/bin/env bash
# Writes what gpudoctor prints for every captured host into OUT_DIR: the text report, the -v
# report and the --json --no-capture report, for each captured host and for every extra capture
# given (a rule host case composed with GD_RULE_HOST_DUMP, say). The captured hosts are the
# committed tests/hosts/*.capture.json and those made from tests/hosts/*.host.json, all in the
# build tree's generated/tests/hosts/ beside the binary: this script makes that folder again
# first, as the ctest fixture test.inputs does. What is measured during the replay itself is
# blanked (run.duration_ms, run.started, and the fat-binary scan's time: the replay scans the
# captured bytes again). Two such folders made before and after a refactor must be identical:
#   bash tests/hosts/replay_reports.sh build/gpudoctor /tmp/before [/tmp/composed/*.capture.json]
#   ... change the code, rebuild ...
#   bash tests/hosts/replay_reports.sh build/gpudoctor /tmp/after  [...] && diff -r /tmp/before /tmp/after
set -euo pipefail
gd=$1
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$gd")
# The composer of the captures stored as host files (one file over the core library `make build` made).
cmake --build "$build" --target compose_capture >/dev/null
bash "$here/make_test_inputs.sh" "$build/tests/compose_capture" "$build/generated" >/dev/null
hosts=$build/generated/tests/hosts
mkdir -p "$out"
blank() {
  python3 -c '
import json, re, sys
text = sys.stdin.read()
text = re.sub(r"\(read in [0-9]+ ms\)", "(read in N ms)", text)
try:
    report = json.loads(text)
except ValueError:
    sys.stdout.write(re.sub(r"(torch\.fatbin_scan_ms = )[0-9]+", r"\1N", text))
    sys.exit(0)
report.get("run", {})["duration_ms"] = 0
if "started" in report.get("run", {}):
    report["run"]["started"] = ""
fact = report.get("facts", {}).get("torch.fatbin_scan_ms", {})
if "value" in fact:
    fact["value"] = 0
json.dump(report, sys.stdout, indent=1, sort_keys=True)
'
}
for capture in "$hosts"/*.capture.json "$@"; do
  name=$(basename "$capture" .capture.json)
  "$gd" replay "$capture" --color never 2>&1 | blank >"$out/$name.txt" || true
  "$gd" replay "$capture" --color never -v 2>&1 | blank >"$out/$name.verbose.txt" || true
  "$gd" replay "$capture" --json --no-capture 2>&1 | blank >"$out/$name.json" || true
done
echo "$(ls "$out" | wc -l) reports in $out"
