"""Checks a `gpudoctor --format markdown` report against the `--json --no-capture` report of the
same run, through a real Markdown parser (Debian's python3-markdown, with the tables and
fenced_code extensions that GitHub's Markdown has): the document must parse into exactly the
structure the renderer means, and every value must come out as it went in.

usage: check_markdown.py REPORT.md REPORT.json [--absent TEXT]...
  --absent TEXT: TEXT must not occur in the Markdown (a host name under --redact)
Exit 0 when it holds, 1 with FAIL lines when not, 125 when the markdown module is missing.
"""
import json
import re
import sys
from html.parser import HTMLParser

try:
    import markdown
except ImportError as e:
    print(f"SKIP: python3-markdown is not installed for {sys.executable}: {e}")
    sys.exit(125)

LIMIT = 65536  # GitHub's limit on a comment, in characters
BUDGET = 65000  # the renderer's, in bytes (src/report/render_markdown.hpp)
ALLOWED_TAGS = {"h2", "h3", "h4", "p", "strong", "code", "pre", "table", "thead", "tbody", "tr", "th", "td", "br",
                "details", "summary", "blockquote", "sub", "a"}
AREA_MARKS = {"ok": "✅ ok", "info": "ℹ️ info", "warning": "⚠️ warning", "error": "❌ error", "unknown": "❔ unknown",
              "skipped": "➖ skipped"}
SEVERITY_MARKS = {"error": "❌ error", "warning": "⚠️ warning", "info": "ℹ️ info"}

failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}")


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        out = []
        for child in self.children:
            if isinstance(child, str):
                out.append(child)
            elif child.tag == "br":
                out.append("\n")
            else:
                out.append(child.text())
        return "".join(out)

    def find_all(self, tag):
        for child in self.children:
            if isinstance(child, Node):
                if child.tag == tag:
                    yield child
                yield from child.find_all(tag)

    def elements(self):
        return [c for c in self.children if isinstance(c, Node)]


class TreeBuilder(HTMLParser):
    VOID = {"br", "hr", "img", "input", "meta", "link"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", [], None)
        self.current = self.root
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        node = Node(tag, attrs, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_endtag(self, tag):
        node = self.current
        while node is not None and node.tag != tag:
            node = node.parent
        if node is None or node.parent is None:
            fail(f"an end tag </{tag}> without its start")
            return
        self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def value_text(fact):
    """The fact as src/core/fact.cpp fact_text() writes it."""
    if fact["state"] == "present":
        v = fact["value"]
        if fact["type"] == "bool":
            return "true" if v else "false"
        if fact["type"] == "list":
            return "[" + ", ".join(v) + "]"
        return str(v)
    if fact["state"] == "absent":
        return "absent"
    return f"unknown ({fact['reason']})" if fact.get("reason") else "unknown"


def one_line(text):
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n").replace("\t", "\\t")


def timeless(text):
    """`text` without the milliseconds it took: the Markdown and the JSON report come from two
    runs, and what is timed (a scan of torch's GPU code) differs between them."""
    text = re.sub(r"\b\d+ ms\b", "N ms", text)
    return re.sub(r"^([a-z0-9_.]+_ms) = \d+", r"\1 = N", text)


def same_or_cut(shown, whole, what):
    """`shown` is `whole`, or a prefix of it followed by the renderer's '…'."""
    shown, whole = timeless(shown), timeless(whole)
    if shown == whole:
        return True
    if shown.endswith("…") and whole.startswith(shown[:-1]) and len(shown) > 1:
        return True
    fail(f"{what}: shown as {shown[:200]!r}, the report has {whole[:200]!r}")
    return False


def main():
    md_path, json_path = sys.argv[1], sys.argv[2]
    absent = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--absent"]
    raw = open(md_path, "rb").read()
    text = raw.decode("utf-8")  # fails on invalid UTF-8
    report = json.load(open(json_path, encoding="utf-8"))
    if len(text) >= LIMIT or len(raw) > BUDGET:
        fail(f"{len(text)} characters, {len(raw)} bytes: over the limit")

    builder = TreeBuilder()
    builder.feed(markdown.markdown(text, extensions=["tables", "fenced_code"]))
    root = builder.root
    # A redacted name must not be left as a word of the text a reader sees (--redact replaces
    # whole words, as src/report/redact.cpp does: "vm" stays inside "nvml").
    shown = root.text()
    for a in absent:
        if re.search(r"(?<![A-Za-z0-9_-])" + re.escape(a) + r"(?![A-Za-z0-9_-])", shown):
            fail(f"{a!r} occurs in the report")
    stray = builder.tags - ALLOWED_TAGS
    if stray:
        fail(f"HTML elements the renderer never writes (a value read as HTML?): {sorted(stray)}")

    # The verdict.
    h2 = list(root.find_all("h2"))
    s = report["summary"]
    if len(h2) != 1:
        fail(f"{len(h2)} level-2 headings, expected the one verdict")
    else:
        verdict = h2[0].text()
        want = {"error": "❌ gpudoctor: ", "warning": "⚠️ gpudoctor: ", "ok": "✅ gpudoctor: no "}[s["status"]]
        # Nothing flagged but something not checked (the JSON's verdict): never "no problems found".
        if s["status"] == "ok" and s.get("verdict") == "incomplete":
            want = "❔ gpudoctor: no problem confirmed"
        if not verdict.startswith(want):
            fail(f"verdict {verdict!r} for status {s['status']}")
        if s["errors"] and f"{s['errors']} error" not in verdict:
            fail(f"verdict {verdict!r} lacks the {s['errors']} errors")

    # What was left out, if anything: the note names it.
    note = "".join(q.text() for q in root.find_all("blockquote"))
    shortened = "Shortened to fit one GitHub comment" in note
    left_out_groups = set(re.findall(r"(?<![\w.])([a-z][a-z0-9_]*)\.\* \(\d+\)", note))

    # The overview table: one row per area, the mark, the title and the summary as they are.
    tables = list(root.find_all("table"))
    overview_left_out = "the overview table" in note
    if report["areas"] and not overview_left_out:
        if len(tables) != 1:
            fail(f"{len(tables)} tables, expected the overview")
        else:
            header = [th.text() for th in tables[0].find_all("th")]
            if header != ["", "Layer", "Summary"]:
                fail(f"overview header {header}")
            rows = list(next(tables[0].find_all("tbody")).find_all("tr"))
            if len(rows) != len(report["areas"]):
                fail(f"{len(rows)} overview rows for {len(report['areas'])} areas")
            for row, area in zip(rows, report["areas"]):
                cells = [td.text() for td in row.find_all("td")]
                if len(cells) != 3:
                    fail(f"overview row for {area['id']} has {len(cells)} cells: {cells}")
                    continue
                if cells[0] != AREA_MARKS[area["status"]]:
                    fail(f"area {area['id']}: mark {cells[0]!r} for status {area['status']}")
                same_or_cut(cells[1], area["title"], f"area {area['id']} title")
                lines = cells[2].split("\n")
                same_or_cut(lines[0], area["summary"], f"area {area['id']} summary")
                if len(lines) > 1 or "the overview's lines per GPU" not in note:
                    details = [l[2:] for l in lines[1:]]
                    for shown, whole in zip(details, area["details"]):
                        same_or_cut(shown, whole, f"area {area['id']} detail")
                    if len(details) != len(area["details"]) and not (details and details[-1].startswith("… ")):
                        fail(f"area {area['id']}: {len(details)} detail lines for {len(area['details'])}")

    # The findings: a level-4 heading each, then the id line, the message, the fix steps as code
    # blocks (exactly the steps), the evidence as a code block.
    body = root.elements()
    headings = [i for i, n in enumerate(body) if n.tag == "h4"]
    if len(headings) > len(report["findings"]):
        fail(f"{len(headings)} finding headings for {len(report['findings'])} findings")
    if not shortened and len(headings) != len(report["findings"]):
        fail(f"{len(headings)} finding headings for {len(report['findings'])} findings, and nothing said to be left out")
    for n, (start, finding) in enumerate(zip(headings, report["findings"])):
        end = next((i for i in range(start + 1, len(body)) if body[i].tag in ("h3", "h4")), len(body))
        section = body[start + 1:end]
        fid = finding["id"]
        same_or_cut(body[start].text(), f"{SEVERITY_MARKS[finding['severity']]}: {finding['title']}", f"{fid} heading")
        if not section or not section[0].text().startswith(f"{fid} · area {finding['area']} · "):
            fail(f"{fid}: the line after its heading is {section[0].text()[:100] if section else None!r}")
            continue
        if not section[0].text().endswith(f"action {finding['action']}"):
            fail(f"{fid}: action line {section[0].text()!r}")
        blocks = [node for node in section if node.tag == "pre"]
        texts = [b.text() for b in blocks]
        paragraphs = [node.text() for node in section if node.tag == "p"]
        # Whole unless the note names it, or the note could not name every finding it cut.
        named = re.search(r"(?<![\w.-])" + re.escape(fid) + r"(?![\w.-])", note) is not None
        whole = not shortened or not (named or re.search(r"and \d+ more", note))
        if finding["message"] and (whole or len(section) > 1) and len(paragraphs) > 1:
            same_or_cut(paragraphs[1], finding["message"], f"{fid} message")
        if whole:
            if finding["why"] and ("Why: " + finding["why"]) not in paragraphs:
                fail(f"{fid}: no 'Why:' paragraph with the rule's text")
            steps = texts[:len(finding["fix"])]
            want = [one.replace("\r\n", "\n") + ("" if one.endswith("\n") else "\n") for one in finding["fix"]]
            if steps != want:
                fail(f"{fid}: fix steps as code blocks {steps!r}, expected {want!r}")
            if finding["evidence"]:
                lines = texts[len(finding["fix"])].splitlines() if len(texts) > len(finding["fix"]) else []
                want = [f"{e['fact']} = {one_line(e['value'])}" + (f"  ({one_line(e['source'])})" if e["source"] else "")
                        for e in finding["evidence"]]
                if len(lines) != len(want):
                    fail(f"{fid}: {len(lines)} evidence lines for {len(want)}")
                for shown, w in zip(lines, want):
                    if shown != w and not (len(w) > 500 and "…" in shown):
                        fail(f"{fid}: evidence {shown!r}, expected {w!r}")

    # The folded detail: one block for the checks that could not decide, one per fact group.
    groups = {}
    for name, fact in report["facts"].items():
        groups.setdefault(name.split(".")[0], {})[name] = fact
    seen_groups = set()
    inconclusive_seen = False
    for details in root.find_all("details"):
        summary = next(details.find_all("summary"), None)
        pre = list(details.find_all("pre"))
        if summary is None or len(pre) != 1:
            fail(f"a <details> block without its summary and one code block: {details.text()[:200]!r}")
            continue
        title = summary.text()
        lines = pre[0].text().splitlines()
        m = re.fullmatch(r"Facts: ([a-z0-9_]+)\.\* \((\d+)\)", title)
        if m:
            group, count = m.group(1), int(m.group(2))
            seen_groups.add(group)
            facts = groups.get(group, {})
            if count != len(facts) or len(lines) != len(facts):
                fail(f"facts {group}.*: {count} in the summary, {len(lines)} lines, {len(facts)} in the report")
            for line, (name, fact) in zip(lines, sorted(facts.items())):
                want = f"{name} = {one_line(value_text(fact))}"
                if fact["state"] == "absent" and fact.get("reason"):
                    want += f" ({one_line(fact['reason'])})"
                if fact.get("source"):
                    want += f"  ({one_line(fact['source'])})"
                line, want = timeless(line), timeless(want)
                if line != want and not (line.startswith(f"{name} = ") and "…" in line and len(want) > 2000):
                    fail(f"fact line {line[:300]!r}, expected {want[:300]!r}")
            continue
        m = re.fullmatch(r"(\d+) checks? that could not decide.*", title)
        if m:
            inconclusive_seen = True
            ids = [l.split("  ")[0] for l in lines if not l.startswith(" ")]
            if int(m.group(1)) != len(report["inconclusive"]) or ids != [i["id"] for i in report["inconclusive"]]:
                fail(f"checks that could not decide: {title!r} lists {len(ids)}, the report {len(report['inconclusive'])}")
            continue
        fail(f"a <details> block of an unknown kind: {title!r}")
    if report["inconclusive"] and not inconclusive_seen and "the list of checks that could not decide" not in note:
        fail("the checks that could not decide are neither shown nor said to be left out")
    if seen_groups | left_out_groups != set(groups) or seen_groups & left_out_groups:
        fail(f"fact groups shown {sorted(seen_groups)} and left out {sorted(left_out_groups)}, the report has {sorted(groups)}")
    if shortened and "gpudoctor --json" not in note:
        fail("the note does not say where the whole report is")
    print(f"{md_path}: {len(raw)} bytes, {len(headings)} findings, {len(seen_groups)} fact groups shown"
          + (f", left out: {note[note.find('Left out:'):][:300]}" if shortened else ""))
    return 1 if failures else 0


sys.exit(main())
