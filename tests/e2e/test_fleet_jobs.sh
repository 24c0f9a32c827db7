# gpudoctor fleet --jobs (issue 27 item 2): the reports are read and digested on worker threads,
# and the output is the same, byte for byte, with 1, 2, 3 or 8 of them, from a folder (small files
# read whole, a large JSON Lines file read as a stream, broken and foreign files among them) and
# from standard input; --jobs 0 is refused.
source "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/base"
for capture in h200-container-580.159.04 lxc-stale-uvm-major upgrade-without-reboot; do
  "$GD" replay "$HOSTS/$capture.capture.json" --json --no-capture >"$TMP/base/$capture.json" 2>/dev/null
done
# 90 nodes in files, some twice (an older report), and 60 more in one JSON Lines file of over
# 4 MiB (read as a stream: its reports are handed to the workers one by one) with text, binary
# data and a truncated report among them; a corrupt, a truncated and an empty file.
python3 - "$TMP/base" "$TMP/fleet" <<'PY'
import json, os, sys
base, out = sys.argv[1], sys.argv[2]
reports = [json.load(open(os.path.join(base, f))) for f in sorted(os.listdir(base))]
os.makedirs(os.path.join(out, "rack"))
for i in range(1, 91):
    r = reports[i % 3]
    r["run"]["host"] = "gpu%d" % i
    r["run"]["started"] = "2026-12-01T10:00:%02d.000Z" % (i % 60)
    json.dump(r, open(os.path.join(out, "rack", "gpu%d.json" % i), "w"), indent=1 + i % 2)
    if i % 17 == 0:
        r["run"]["started"] = "2026-11-01T10:00:00.000Z"
        json.dump(r, open(os.path.join(out, "rack", "gpu%d.old.json" % i), "w"))
with open(os.path.join(out, "big.jsonl"), "w") as stream:
    for i in range(91, 151):
        r = reports[i % 3]
        r["run"]["host"] = "gpu%d" % i
        text = json.dumps(r)
        if i == 100:
            stream.write("a line of text\n")
        if i == 110:
            stream.write("\x01\x02binary\n")
        if i == 120:
            stream.write(text[: len(text) // 2] + "\n")
        stream.write(text + "\n")
    stream.write("padding " * (4 << 17) + "\n")  # past 4 MiB whatever the reports' size
open(os.path.join(out, "rack", "corrupt.json"), "w").write('{"schema_version": 1, "findings": [}\n')
open(os.path.join(out, "rack", "truncated.json"), "w").write(json.dumps(reports[0], indent=1)[:5000])
open(os.path.join(out, "rack", "empty.json"), "w").write("")
# A file read whole is cut as a stream is: a byte order mark and blank lines before the report
# (it starts on line 3), and a report printed without indentation, whose nested objects start
# lines (a line that starts with '{' begins a new report: this one is cut, as truncated).
r = reports[0]
r["run"]["host"] = "gpu-bom"
open(os.path.join(out, "rack", "bom.json"), "w", encoding="utf-8").write("\ufeff\n \n" + json.dumps(r, indent=1) + "\n\n")
r["run"]["host"] = "gpu-flat"
open(os.path.join(out, "rack", "flat.json"), "w").write(json.dumps(r, indent=0))
PY
checks=$((checks + 1))
[ "$(stat -c %s "$TMP/fleet/big.jsonl")" -gt $((4 << 20)) ] || fail "big.jsonl is not over 4 MiB"

for jobs in 1 2 3 8; do
  run_gd "folder$jobs" fleet "$TMP/fleet" --json --jobs "$jobs"
  expect_rc "folder$jobs" 1
  "$GD" fleet - --json --jobs "$jobs" <"$TMP/fleet/big.jsonl" >"$TMP/stdin$jobs.out" 2>"$TMP/stdin$jobs.err"
  rc=$?
  sanitizer_clean "stdin$jobs"
  expect_rc "stdin$jobs" 1
  run_gd "text$jobs" fleet "$TMP/fleet/rack" "$TMP/fleet/big.jsonl" --verbose --jobs "$jobs"
  expect_rc "text$jobs" 1
done
run_gd default fleet "$TMP/fleet" --json
for run in folder2 folder3 folder8 default stdin2 stdin3 stdin8 text2 text3 text8; do
  checks=$((checks + 1))
  cmp -s "$TMP/${run%%[0-9]*}1.out" "$TMP/$run.out" 2>/dev/null ||
    { [ "$run" = default ] && cmp -s "$TMP/folder1.out" "$TMP/default.out"; } ||
    fail "$run: the output differs from --jobs 1: $(diff "$TMP/${run%%[0-9]*}1.out" "$TMP/$run.out" 2>&1 | head -5)"
done
# What the run read: every node, the old reports as duplicates, each broken part by its place.
expect_json folder1 'f["nodes"], f["reports"], len(f["duplicates"])' "(151, 156, 5)"
expect_json folder1 'sorted(u["path"].rsplit("/", 1)[-1] for u in f["unreadable"] if "flat" not in u["path"])' \
  "['big.jsonl:10', 'big.jsonl:21', 'big.jsonl:32', 'big.jsonl:64', 'corrupt.json', 'empty.json', 'truncated.json']"
expect_json folder1 '[u["reason"] for u in f["unreadable"] if u["path"].endswith("flat.json")]' \
  "['truncated: a new report begins on line 3 before this one ends', '155 more parts of this input could not be read']"
expect_json stdin1 '[u["path"] for u in f["unreadable"]]' "['-:10', '-:21', '-:32', '-:64']"

run_gd jobs0 fleet "$TMP/fleet" --jobs 0
checks=$((checks + 1))
[ "$rc" -ne 0 ] && [ ! -s "$TMP/jobs0.out" ] || fail "--jobs 0 was not refused (exit $rc)"
finish
