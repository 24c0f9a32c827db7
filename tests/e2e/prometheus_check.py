"""Reads gpudoctor's Prometheus metrics with the reference parser (python3-prometheus-client) and
checks them against the contract README documents. Run with Debian's /usr/bin/python3.

  prometheus_check.py contract README FILE...   every FILE parses, and its families and label
                                                names are exactly README's table
  prometheus_check.py contract-in HEADING README FILE...  the same against the table under
                                                README's HEADING ("### Fleet metrics")
  prometheus_check.py value FILE FAMILY [k=v ...] the value of the one sample of FAMILY with
                                                these labels ("missing" when none)
  prometheus_check.py labels FILE FAMILY KEY    the KEY label of every sample of FAMILY, as JSON
"""
import json
import re
import sys

from prometheus_client.parser import text_string_to_metric_families


def families(path):
    """name -> (type, help, [(labels, value)]), read by the reference parser."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for family in text_string_to_metric_families(text):
        out[family.name] = (family.type, family.documentation, [(s.labels, s.value) for s in family.samples])
    # The parser accepts a family without TYPE as "unknown"; every gpudoctor family must say both
    # (a scrape also holds node_exporter's own, whose counters' TYPE names end in _total).
    for name in out:
        if name.startswith("gpudoctor_") and (f"# HELP {name} " not in text or f"# TYPE {name} " not in text):
            raise SystemExit(f"{path}: {name} lacks HELP or TYPE")
    return out


def readme_contract(readme, heading="### Prometheus metrics"):
    """The table of README's `heading` subsection: family -> ordered label names."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    section = text.split(heading + "\n", 1)
    if len(section) != 2:
        raise SystemExit(f"{readme}: no '{heading}' section")
    body = section[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    contract = {}
    for line in body.splitlines():
        m = re.match(r"\| `(gpudoctor_[a-z0-9_]+)` \| ([^|]*) \|", line)
        if m:
            contract[m.group(1)] = re.findall(r"`([a-z_]+)`", m.group(2))
    if not contract:
        raise SystemExit(f"{readme}: the Prometheus metrics table is empty")
    return contract


def check_contract(readme, paths, heading="### Prometheus metrics"):
    contract = readme_contract(readme, heading)
    problems = []
    for path in paths:
        found = families(path)
        if set(found) != set(contract):
            problems.append(f"{path}: families {sorted(set(found) ^ set(contract))} differ from README's table")
        for name, (kind, help_text, samples) in found.items():
            if kind != "gauge" or not help_text:
                problems.append(f"{path}: {name} is {kind!r} with help {help_text!r}")
            for labels, _ in samples:
                if name in contract and sorted(labels) != sorted(contract[name]):
                    problems.append(f"{path}: {name}{labels} has labels other than README's {contract[name]}")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main():
    command = sys.argv[1]
    if command == "contract":
        return check_contract(sys.argv[2], sys.argv[3:])
    if command == "contract-in":
        return check_contract(sys.argv[3], sys.argv[4:], sys.argv[2])
    if command == "value":
        want = dict(arg.split("=", 1) for arg in sys.argv[4:])
        samples = families(sys.argv[2]).get(sys.argv[3], (None, None, []))[2]
        hits = [value for labels, value in samples if all(labels.get(k) == v for k, v in want.items())]
        print("missing" if not hits else ("ambiguous" if len(hits) > 1 else repr(hits[0])))
        return 0
    if command == "labels":
        samples = families(sys.argv[2]).get(sys.argv[3], (None, None, []))[2]
        print(json.dumps([labels.get(sys.argv[4]) for labels, _ in samples]))
        return 0
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    sys.exit(main())
