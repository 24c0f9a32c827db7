"""Turns real `--format prometheus` outputs into a `promtool test rules` file for
deploy/prometheus/gpudoctor.rules.yml (issue 27 item 4). Run with Debian's /usr/bin/python3
(python3-prometheus-client, python3-yaml).

  prometheus_rules_check.py unittest RULES FLEET_JSON OUT_DIR NODE=FILE[:frozen]... FLEET=FILE
      (a FILE: gpudoctor's output, or node_exporter's scrape of it as its textfile)
      writes OUT_DIR/rules.yml (RULES with only the `summary` annotation: the expected summaries
      below are exact; descriptions are template-checked by `promtool check rules`) and
      OUT_DIR/test.yml: every sample of every FILE as an input series, labelled
      instance=NODE and job=node (as node_exporter's textfile collector serves them), one a
      minute for 80 minutes; then the alerts expected of the captured hosts the test replays.
      A node marked :frozen stopped running gpudoctor at minute 0: its timestamps stay put.
  prometheus_rules_check.py runbooks RULES README
      every runbook_url names README.md and a section README has (GitHub's anchor of a heading)
"""
import json
import re
import sys

import yaml
from prometheus_client.parser import text_string_to_metric_families

MINUTES = 80
# Families whose value is a Unix time: promtool's clock starts at 0, so they are moved onto it
# (a run at every minute: the value is the evaluation time; a frozen node's stays at 0).
CLOCKS = {"gpudoctor_last_run_timestamp_seconds", "gpudoctor_fleet_last_run_timestamp_seconds",
          "node_textfile_mtime_seconds"}
# A FILE may be node_exporter's scrape of the textfile (what Prometheus stores): its
# node_textfile_* series are kept, its other own series left out. Where the test had no
# node_exporter, its mtime series is written here as node_exporter 1.5.0 writes it (the `file`
# label is the full path), at the path of README's recipes.
TEXTFILE = "/var/lib/prometheus/node-exporter/gpudoctor.prom"
KEPT = ("gpudoctor_", "node_textfile_")


def samples(path):
    with open(path, encoding="utf-8") as f:
        for family in text_string_to_metric_families(f.read()):
            for s in family.samples:
                yield s.name, dict(s.labels), s.value


def selector(name, labels):
    # A label value as a PromQL string (JSON's escapes are a subset of Go's).
    return name + "{" + ",".join(f"{k}={json.dumps(v)}" for k, v in labels.items()) + "}"


def values(value, clock, frozen):
    if clock:
        return "0x%d" % MINUTES if frozen else "0+60x%d" % MINUTES
    if value != value:  # NaN: promtool's series notation has no NaN expansion, so it is written out
        return " ".join(["NaN"] * (MINUTES + 1))
    return "%s+0x%d" % (repr(float(value)), MINUTES)


def series_of(path, instance, frozen):
    out = []
    for name, labels, value in samples(path):
        if not name.startswith(KEPT):
            continue
        labels.update(instance=instance, job="node")
        out.append({"series": selector(name, labels), "values": values(value, name in CLOCKS, frozen)})
    names = {s["series"].split("{")[0] for s in out}
    if "gpudoctor_last_run_timestamp_seconds" in names and "node_textfile_mtime_seconds" not in names:
        out.append({"series": selector("node_textfile_mtime_seconds", {"file": TEXTFILE, "instance": instance, "job": "node"}),
                    "values": values(0, True, frozen)})
    return out


def alert(labels, summary):
    return {"exp_labels": labels, "exp_annotations": {"summary": summary}}


def expectations(fleet_json, fleet_instance, outlier_facts):
    """The alerts the captured hosts must raise, at times around each rule's `for`."""
    failing = {"instance": "failing", "job": "node"}
    unproven = {"instance": "unproven", "job": "node"}
    finding_failing = alert(dict(failing, id="devices.uvm-wrong-major", area="devices", scope="node",
                                 action="fix-config", severity="critical"),
                            "failing: gpudoctor finds devices.uvm-wrong-major")
    finding_unproven = alert(dict(unproven, id="driver.userspace-version-mismatch", area="driver", scope="node",
                                  action="reboot", severity="critical"),
                             "unproven: gpudoctor finds driver.userspace-version-mismatch")
    gpu = {"index": "0", "bus_id": "0000:00:06.0", "uuid": "GPU-4d968105-8e4b-c676-0e79-49f556158d9a"}
    gpu_failed = alert(dict(failing, **gpu, severity="critical"),
                       "failing: GPU 0 (0000:00:06.0) failed gpudoctor's CUDA check")
    # uuid "" (neither CUDA nor NVML gave it) is no label at all to Prometheus.
    not_proven = alert(dict(unproven, index="0", bus_id="0000:01:00.0", severity="warning"),
                       "unproven: GPU 0 (0000:01:00.0) not proven by gpudoctor")
    stale = alert({"instance": "stale", "job": "node", "severity": "warning"}, "stale: gpudoctor's metrics are stale")
    outliers = [alert({"instance": fleet_instance, "job": "node", "fact": fact, "severity": "warning"},
                      f"gpudoctor fleet: {fact} differs across the fleet ({n} values)") for fact, n in outlier_facts]
    return [
        # Within `for`: pending, nothing fires; the healthy, busy and fresh nodes never do.
        {"eval_time": "5m", "alertname": "GpudoctorErrorFinding", "exp_alerts": []},
        {"eval_time": "5m", "alertname": "GpudoctorGpuFailed", "exp_alerts": []},
        {"eval_time": "5m", "alertname": "GpudoctorFleetOutlier", "exp_alerts": []},
        {"eval_time": "15m", "alertname": "GpudoctorErrorFinding", "exp_alerts": [finding_failing, finding_unproven]},
        {"eval_time": "15m", "alertname": "GpudoctorGpuFailed", "exp_alerts": [gpu_failed]},
        {"eval_time": "15m", "alertname": "GpudoctorFleetOutlier", "exp_alerts": outliers},
        {"eval_time": "15m", "alertname": "GpudoctorMetricsStale", "exp_alerts": []},
        {"eval_time": "30m", "alertname": "GpudoctorMetricsStale", "exp_alerts": [stale]},
        {"eval_time": "30m", "alertname": "GpudoctorGpuNotProven", "exp_alerts": []},
        # The busy GPU (NaN, gpudoctor_gpu_busy 1) is no alert, the one CUDA never tried is.
        {"eval_time": "70m", "alertname": "GpudoctorGpuNotProven", "exp_alerts": [not_proven]},
        {"eval_time": "70m", "alertname": "GpudoctorErrorFinding", "exp_alerts": [finding_failing, finding_unproven]},
    ]


def unittest(rules, fleet_json, out_dir, specs):
    with open(rules, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    for group in doc["groups"]:
        for rule in group["rules"]:
            rule["annotations"] = {"summary": rule["annotations"]["summary"]}
    with open(f"{out_dir}/rules.yml", "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False)

    series = []
    fleet_instance = None
    for spec in specs:
        instance, path = spec.split("=", 1)
        frozen = path.endswith(":frozen")
        path = path.removesuffix(":frozen")
        if instance == "FLEET":
            fleet_instance = instance = "fleet"
        series += series_of(path, instance, frozen)

    # The outliers: from the fleet's own output once `gpudoctor fleet` computes them (its JSON
    # has "outliers"); until then the family has no sample and the rule runs on one written
    # here in the renderer's form (src/fleet/fleet_prometheus.cpp).
    with open(fleet_json, encoding="utf-8") as f:
        fleet = json.load(f)
    written = [s for s in series if s["series"].startswith("gpudoctor_fleet_outlier_nodes{")]
    if "outliers" in fleet:
        facts = [(o["fact"], len(o["values"])) for o in fleet["outliers"]]
        if len(written) != sum(n for _, n in facts):
            raise SystemExit(f"the fleet JSON lists {facts}, its metrics {len(written)} outlier samples")
        if not facts:
            raise SystemExit("the test fleet mixes hosts of two drivers but the fleet found no outlier")
    else:
        print("NOTE: this gpudoctor fleet has no outliers yet (issue 27 item 1): "
              "GpudoctorFleetOutlier runs on written series")
        if written:
            raise SystemExit("outlier samples without outliers in the fleet JSON")
        for value, n in (("580.159.04", 3), ("570.86.15", 1)):
            labels = {"fact": "driver", "value": value, "instance": "fleet", "job": "node"}
            series.append({"series": selector("gpudoctor_fleet_outlier_nodes", labels), "values": values(n, False, False)})
        facts = [("driver", 2)]

    test = {"rule_files": ["rules.yml"], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series,
                       "alert_rule_test": expectations(fleet, fleet_instance, facts)}]}
    with open(f"{out_dir}/test.yml", "w", encoding="utf-8") as f:
        yaml.safe_dump(test, f, sort_keys=False, width=1000)
    return 0


def github_anchor(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def runbooks(rules, readme):
    with open(readme, encoding="utf-8") as f:
        anchors = {github_anchor(m) for m in re.findall(r"^#+ (.*)$", f.read(), re.M)}
    with open(rules, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    problems = []
    for group in doc["groups"]:
        for rule in group["rules"]:
            url = rule.get("annotations", {}).get("runbook_url", "")
            page, _, anchor = url.partition("#")
            if page != "README.md" or anchor not in anchors:
                problems.append(f"{rule['alert']}: runbook_url {url!r} is no README.md section")
            for key in ("summary", "description"):
                if not rule.get("annotations", {}).get(key):
                    problems.append(f"{rule['alert']}: no {key}")
            if not rule.get("labels", {}).get("severity"):
                problems.append(f"{rule['alert']}: no severity label")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main():
    if sys.argv[1] == "unittest":
        return unittest(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    if sys.argv[1] == "runbooks":
        return runbooks(sys.argv[2], sys.argv[3])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
