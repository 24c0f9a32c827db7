"""Checks deploy/grafana/gpudoctor-dashboard.json (issue 27 item 4) and the PromQL of the alerting
rules against what gpudoctor really exports. Run with Debian's /usr/bin/python3.

  grafana_dashboard_check.py model DASHBOARD
      a dashboard Grafana imports (its classic JSON model): title, uid, schemaVersion, a
      Prometheus datasource variable, panels with an id, a type, a title, a grid position inside
      the 24 columns and targets with a refId and an expression on that datasource
  grafana_dashboard_check.py names DASHBOARD|RULES METRICS... [--also NAME...]
      every metric name of every expression is a family of one of the METRICS files (real
      `--format prometheus` outputs, node and fleet) or one named after --also
  grafana_dashboard_check.py rules DASHBOARD OUT
      writes the expressions as recording rules, for `promtool check rules` to parse
"""
import json
import re
import sys

import yaml
from prometheus_client.parser import text_string_to_metric_families

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "bool", "offset"}
PANEL_TYPES = {"stat", "timeseries", "bargauge", "table", "piechart", "gauge", "text", "row"}


def expressions(path):
    """(where, expr) of every query of a dashboard or alerting-rules file."""
    with open(path, encoding="utf-8") as f:
        if path.endswith(".json"):
            doc = json.load(f)
            return [(f"panel {p.get('title')!r} {t.get('refId')}", t.get("expr", ""))
                    for p in doc.get("panels", []) for t in p.get("targets", [])]
        doc = yaml.safe_load(f)
        return [(r.get("alert") or r.get("record"), r["expr"]) for g in doc["groups"] for r in g["rules"]]


def metric_names(expr):
    """The metric names an expression selects: what remains once strings, label matchers,
    grouping clauses, function calls, keywords and numbers are set aside."""
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)  # range and subquery durations
    names = set()
    for m in re.finditer(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", text):
        if m.group(2) or m.group(1) in KEYWORDS:
            continue
        names.add(m.group(1))
    return names


def exported(paths):
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            names |= {family.name for family in text_string_to_metric_families(f.read())}
    return names


def check_names(path, metric_files, also):
    known = exported(metric_files) | set(also)
    problems = []
    used = set()
    for where, expr in expressions(path):
        names = metric_names(expr)
        if not names:
            problems.append(f"{where}: no metric in {expr!r}")
        used |= names
        for name in sorted(names - known):
            problems.append(f"{where}: {name} is no family gpudoctor exports ({expr!r})")
    for p in problems:
        print(p)
    print("names used: " + " ".join(sorted(used)))
    return 1 if problems else 0


def check_model(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    problems = []
    need = lambda cond, what: cond or problems.append(what)
    need(isinstance(d.get("title"), str) and d["title"], "no title")
    need(isinstance(d.get("uid"), str) and re.fullmatch(r"[A-Za-z0-9_-]{1,40}", d.get("uid", "")), "uid missing or not 1-40 [A-Za-z0-9_-]")
    need(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 36, "schemaVersion not an int >= 36 (datasource objects)")
    need(d.get("id") is None, "an id: a dashboard to import has none (Grafana assigns it)")
    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = variables.get("datasource", {})
    need(ds.get("type") == "datasource" and ds.get("query") == "prometheus", "no Prometheus datasource variable 'datasource'")
    panels = d.get("panels")
    need(isinstance(panels, list) and panels, "no panels")
    ids = set()
    for p in panels or []:
        name = f"panel {p.get('title')!r}"
        need(isinstance(p.get("id"), int) and p["id"] not in ids, f"{name}: id missing or repeated")
        ids.add(p.get("id"))
        need(p.get("type") in PANEL_TYPES, f"{name}: type {p.get('type')!r}")
        need(isinstance(p.get("title"), str) and p["title"], f"{name}: no title")
        g = p.get("gridPos", {})
        need(all(isinstance(g.get(k), int) for k in "hwxy") and g.get("w", 0) > 0 and g.get("h", 0) > 0 and
             g.get("x", 0) + g.get("w", 0) <= 24, f"{name}: gridPos {g}")
        need(p.get("datasource") == {"type": "prometheus", "uid": "${datasource}"}, f"{name}: datasource {p.get('datasource')}")
        targets = p.get("targets")
        need(isinstance(targets, list) and targets, f"{name}: no targets")
        refs = set()
        for t in targets or []:
            need(isinstance(t.get("expr"), str) and t["expr"].strip(), f"{name}: a target without expr")
            need(t.get("refId") and t["refId"] not in refs, f"{name}: refId missing or repeated")
            refs.add(t.get("refId"))
            need(t.get("datasource") == p.get("datasource"), f"{name} {t.get('refId')}: another datasource")
    for p in problems:
        print(p)
    return 1 if problems else 0


def write_rules(path, out):
    rules = [{"record": f"gpudoctor_dashboard:query{i}", "expr": expr} for i, (_, expr) in enumerate(expressions(path))]
    with open(out, "w", encoding="utf-8") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f, sort_keys=False)
    return 0


def main():
    command = sys.argv[1]
    if command == "model":
        return check_model(sys.argv[2])
    if command == "names":
        args = sys.argv[3:]
        also = args[args.index("--also") + 1:] if "--also" in args else []
        files = args[:args.index("--also")] if "--also" in args else args
        return check_names(sys.argv[2], files, also)
    if command == "rules":
        return write_rules(sys.argv[2], sys.argv[3])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
