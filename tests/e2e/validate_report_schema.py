"""Validates gpudoctor --json reports against docs/report.schema.json with python3-jsonschema's
Draft202012Validator (Debian's /usr/bin/python3), and checks three things of the schema:
  - it is strict where it must be: a report with a field renamed, retyped or dropped fails;
  - it is open where it must be: a report with fields added (what a later release with
    schema_version 1 may write) passes;
  - it is complete: every field the reports hold is named in it (checked with a copy of the
    schema in which each object that names its properties is closed).

usage: validate_report_schema.py SCHEMA REPORT.json...
Exit 0 when every report is valid and every mutation is caught, 1 otherwise, 125 when the
jsonschema module is missing (the test is then skipped).
"""
import copy
import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:
    print(f"SKIP: python3-jsonschema is not installed for {sys.executable}: {e}")
    sys.exit(125)

failures = 0


def fail(message):
    global failures
    failures += 1
    print(f"FAIL: {message}")


schema_path, reports = sys.argv[1], sys.argv[2:]
with open(schema_path, encoding="utf-8") as f:
    schema = json.load(f)
try:
    Draft202012Validator.check_schema(schema)
except jsonschema.exceptions.SchemaError as e:
    print(f"FAIL: {schema_path} is not a valid 2020-12 schema: {e.message}")
    sys.exit(1)
validator = Draft202012Validator(schema)


def closed(node):
    """A copy of the schema with additionalProperties false in every object schema that lists
    its properties (and has no additionalProperties of its own): what the reports may not go
    beyond without the schema naming it."""
    if isinstance(node, list):
        return [closed(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: closed(v) for k, v in node.items()}
    if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node:
        out["additionalProperties"] = False
    return out


closed_validator = Draft202012Validator(closed(schema))


def errors_of(report):
    return sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))


def where(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


valid = []
for path in reports:
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    errors = errors_of(report)
    for error in errors[:5]:
        fail(f"{path}: {where(error)}: {error.message[:300]}")
    if not errors:
        valid.append((path, report))
        # Fields the schema does not name: a field added to the report and not to the schema.
        for error in list(closed_validator.iter_errors(report))[:5]:
            fail(f"{path}: {where(error)}: not named in the schema (add it, optional): {error.message[:300]}")
print(f"{len(valid)} of {len(reports)} reports valid")


# Mutations a schema that is strict enough must catch: each takes a valid report and returns a
# changed copy (or None when the report lacks what it changes).
def first(items):
    return items[0] if items else None


def mutations(report):
    def change(fn):
        r = copy.deepcopy(report)
        return r if fn(r) is not False else None

    def rename(obj, old, new):
        if obj is None or old not in obj:
            return False
        obj[new] = obj.pop(old)

    yield "a top-level field renamed", change(lambda r: rename(r, "findings", "finding"))
    yield "schema_version 2", change(lambda r: r.__setitem__("schema_version", 2))
    yield "run.duration_ms as a string", change(lambda r: r["run"].__setitem__("duration_ms", "12"))
    yield "run.host dropped", change(lambda r: r["run"].pop("host"))
    yield "run.scope misspelled", change(lambda r: rename(r["run"], "scope", "scopes"))
    yield "summary.errors as a string", change(lambda r: r["summary"].__setitem__("errors", "0"))
    yield "summary.left_out as a string", change(lambda r: r["summary"].__setitem__("left_out", ""))
    yield "summary.status unknown", change(lambda r: r["summary"].__setitem__("status", "fine"))
    yield "an area's status unknown", change(lambda r: r["areas"][0].__setitem__("status", "green"))
    yield "an area's details as a string", change(lambda r: r["areas"][0].__setitem__("details", "x"))
    yield "a finding's severity renamed", change(lambda r: rename(first(r["findings"]), "severity", "severty"))
    yield "a finding's action unknown", change(lambda r: first(r["findings"]) and first(r["findings"]).__setitem__("action", "pray") if r["findings"] else False)
    yield "a finding's scope dropped", change(lambda r: first(r["findings"]).pop("scope") if r["findings"] else False)
    yield "a finding's fix as a string", change(lambda r: first(r["findings"]).__setitem__("fix", "reboot") if r["findings"] else False)
    yield "an evidence value as a number", change(lambda r: r["findings"][0]["evidence"][0].__setitem__("value", 0) if r["findings"] and r["findings"][0]["evidence"] else False)
    yield "an unknown fact renamed", change(lambda r: rename(first(r["inconclusive"]), "unknown_facts", "unknown"))
    fact_of = lambda r, state, typ=None: next((f for f in r["facts"].values() if f["state"] == state and (typ is None or f["type"] == typ)), None)
    yield "a fact's reason as a number", change(lambda r: fact_of(r, "unknown").__setitem__("reason", 7) if fact_of(r, "unknown") else False)
    # An optional field renamed reads as a field dropped and one added: only the completeness
    # check (the closed copy) can see it.
    yield "a fact's reason renamed (completeness)", change(lambda r: rename(fact_of(r, "unknown"), "reason", "why"))
    yield "a fact's source misspelled (completeness)", change(lambda r: rename(next((f for f in r["facts"].values() if "source" in f), None), "source", "sourse"))
    yield "a bool fact's value as a string", change(lambda r: fact_of(r, "present", "bool").__setitem__("value", "true") if fact_of(r, "present", "bool") else False)
    yield "an int fact's value as a string", change(lambda r: fact_of(r, "present", "int").__setitem__("value", "1") if fact_of(r, "present", "int") else False)
    yield "a list fact's value as a string", change(lambda r: fact_of(r, "present", "list").__setitem__("value", "a") if fact_of(r, "present", "list") else False)
    yield "a present fact without its value", change(lambda r: fact_of(r, "present").pop("value"))
    yield "an absent fact with a value", change(lambda r: fact_of(r, "absent").__setitem__("value", "x") if fact_of(r, "absent") else False)
    yield "a fact type unknown", change(lambda r: fact_of(r, "present").__setitem__("type", "float"))
    yield "a fact name with a capital", change(lambda r: r["facts"].__setitem__("Kmod.x", {"state": "absent", "type": "bool"}))
    if "capture" in report:
        yield "capture.format wrong", change(lambda r: r["capture"].__setitem__("format", "other"))
        yield "a captured path's read as a string", change(lambda r: next(iter(r["capture"]["paths"].values())).__setitem__("read", "text"))
        yield "a captured path's stat type unknown", change(lambda r: next((p["stat"] for p in r["capture"]["paths"].values() if isinstance(p.get("stat"), dict) and "type" in p["stat"]), None).__setitem__("type", "door"))
        yield "a helper run's status unknown", change(lambda r: r["capture"]["helper_runs"][0].__setitem__("status", "fine") if r["capture"]["helper_runs"] else False)


# Each mutation is tried on a few reports (each validation of a report with its capture takes a
# while): the first with a capture, and those that hold the most kinds of what is mutated.
def richness(item):
    path, report = item
    facts = report["facts"].values()
    kinds = {(f["state"], f["type"]) for f in facts}
    return (bool(report["findings"] and report["findings"][0]["evidence"]), bool(report["inconclusive"]), len(kinds))


with_capture = [item for item in valid if "capture" in item[1]][:1]
without = sorted((item for item in valid if "capture" not in item[1]), key=richness, reverse=True)[:3]
caught = 0
tried = set()
for path, report in with_capture + without:
    for name, mutated in mutations(report):
        if mutated is None:
            continue
        tried.add(name)
        if name.endswith("(completeness)"):
            if validator.is_valid(mutated) and closed_validator.is_valid(mutated):
                fail(f"{path}: the completeness check accepts a report with {name}")
            elif not validator.is_valid(mutated):
                fail(f"{path}: the schema refuses a report with {name}, which only the completeness check should see")
            else:
                caught += 1
        elif validator.is_valid(mutated):
            fail(f"{path}: the schema accepts a report with {name}")
        else:
            caught += 1
print(f"{caught} mutations caught ({len(tried)} kinds)")


# Fields a later release may add, in every kind of object: the schema must accept them.
def additions(report):
    r = copy.deepcopy(report)
    r["added_later"] = {"any": ["thing"]}
    for key in ("run", "summary"):
        r[key]["added_later"] = 1
    for key in ("areas", "findings", "inconclusive"):
        for item in r[key]:
            item["added_later"] = True
    for f in r["findings"]:
        for e in f["evidence"]:
            e["added_later"] = "x"
    for fact in r["facts"].values():
        fact["added_later"] = 0
    if "capture" in r:
        r["capture"]["added_later"] = []
        for p in r["capture"]["paths"].values():
            p["added_later"] = {}
    return r


accepted = 0
for path, report in with_capture + without:
    errors = list(validator.iter_errors(additions(report)))
    for error in errors[:3]:
        fail(f"{path}: the schema refuses a field added later: {where(error)}: {error.message[:200]}")
    accepted += not errors
    if closed_validator.is_valid(additions(report)):
        fail(f"{path}: the completeness check accepts fields the schema does not name")
print(f"{accepted} reports with fields added accepted")
if valid and len(tried) < 25:
    fail(f"only {len(tried)} kinds of mutation could be tried: the reports lack what the others change")
sys.exit(1 if failures else 0)
