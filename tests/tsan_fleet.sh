#!/usr/bin/env bash
# `gpudoctor fleet`'s threads under ThreadSanitizer (issue 27 item 2): a binary built by
# `make tsan` (toolchain/host-clang-tsan.cmake) reads the same inputs with --jobs 1, 2, 3 and 8,
# LOOPS times each, and every run must print no TSan report, end within its time limit (a
# deadlock) and print the same bytes, with the same exit code, as --jobs 1 (and as the plain
# binary, when one is given). It builds nothing: it needs the TSan binary, and the captured hosts
# that ctest's fixture test.inputs makes (tests/hosts/make_test_inputs.sh).
# The inputs (made here from `replay --json --no-capture` of captured hosts, under other names):
#   - a folder of reports in nested folders with broken ones among them (corrupt, truncated,
#     empty, binary, text, a byte order mark, a report without indentation whose nested objects
#     start lines, two reports in one file, an older duplicate) and a JSON Lines file of over
#     4 MiB (read as a stream by the main thread) with text, binary data and a truncated report;
#   - the same reports as JSON Lines on standard input;
#   - several paths at once (a subfolder, the large file, standard input, a single file);
#   - many tiny files (the window of units in flight turns over fastest);
#   - files just under 4 MiB (read whole by the workers: the most text per unit) and one over.
# Usage: tests/tsan_fleet.sh TSAN_BINARY [PLAIN_BINARY]
#   env: TSAN_FLEET_HOSTS (captured hosts; default: build/generated/tests/hosts),
#        TSAN_FLEET_NODES (reports in the folder, default 300), TSAN_FLEET_TINY (tiny files,
#        default 1500), TSAN_FLEET_LARGE (files just under 4 MiB, default 6), TSAN_FLEET_LOOPS
#        (rounds over every command and --jobs, default 2), TSAN_FLEET_KEEP (a new folder: the
#        inputs and outputs are kept there).
# As root, --jobs 8 also runs as an unprivileged user whose process limit leaves room for 0, 1
# or 2 worker threads (the pool must go on with the threads it could start).
set -u
tsan=${1:?usage: tests/tsan_fleet.sh TSAN_BINARY [PLAIN_BINARY]}
plain=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
hosts=${TSAN_FLEET_HOSTS:-$src/build/generated/tests/hosts}
nodes=${TSAN_FLEET_NODES:-300}
tiny=${TSAN_FLEET_TINY:-1500}
large=${TSAN_FLEET_LARGE:-6}
loops=${TSAN_FLEET_LOOPS:-2}
started=$(date +%s)

if [ -n "${TSAN_FLEET_KEEP:-}" ]; then
  tmp=$TSAN_FLEET_KEEP
  [ ! -e "$tmp" ] || { echo "FAIL: $tmp exists: TSAN_FLEET_KEEP names a new folder"; exit 1; }
  mkdir -p "$tmp" || exit 1
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$tsan" ] || fail "$tsan: not an executable"
# TSan's runtime needs the address space it knows: clang 16's dies at start on kernels that
# randomise mappings more widely ("unexpected memory mapping"); without randomisation
# (setarch -R) it runs. Where even that is refused, this check cannot run here: said, not failed.
runner=()
if ! "$tsan" --version >/dev/null 2>"$tmp/start.err"; then
  if grep -q 'unexpected memory mapping' "$tmp/start.err" && setarch "$(uname -m)" -R "$tsan" --version >/dev/null 2>&1; then
    runner=(setarch "$(uname -m)" -R)
    echo "tsan_fleet: the TSan runtime needs address-space randomisation off on this kernel: runs under setarch -R"
  elif grep -q 'unexpected memory mapping' "$tmp/start.err"; then
    echo "tsan_fleet: SKIPPED: ThreadSanitizer cannot start on this kernel ($(head -c 300 "$tmp/start.err"))"
    exit 0
  else
    fail "$tsan --version failed: $(head -c 2000 "$tmp/start.err")"
  fi
fi
[ -f "$hosts/h200-live-ml.capture.json" ] || fail "no captured hosts in $hosts (cd build && ctest -R test.inputs)"
# A TSan binary: its runtime reads TSAN_OPTIONS (help=1 lists them and exits).
TSAN_OPTIONS=help=1 "${runner[@]}" "$tsan" --version 2>&1 | grep -q 'halt_on_error' || fail "$tsan is not built with ThreadSanitizer"
# halt_on_error: the first report ends the run (exit 66, a code gpudoctor never uses).
symbolizer=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:exitcode=66${symbolizer:+:external_symbolizer_path=$symbolizer}"

mkdir -p "$tmp/base"
maker=("${runner[@]}" "$tsan")
[ -z "$plain" ] || maker=("$plain")
for capture in h200-live-ml h200-container-580.159.04 lxc-stale-uvm-major upgrade-without-reboot \
  blackwell-firmware-missing fake-mismatch; do
  "${maker[@]}" replay "$hosts/$capture.capture.json" --json --no-capture >"$tmp/base/$capture.json" 2>/dev/null
  [ -s "$tmp/base/$capture.json" ] || fail "replay of $capture printed no report"
done
python3 - "$tmp" "$nodes" "$tiny" "$large" <<'PY' || fail "making the inputs"
import json, os, random, sys
tmp, nodes, tiny, large = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(27)
base = os.path.join(tmp, "base")
reports = [json.load(open(os.path.join(base, f))) for f in sorted(os.listdir(base))]
def report(i, name):
    r = reports[i % len(reports)]
    r["run"]["host"] = name
    r["run"]["started"] = "2026-12-01T10:%02d:%02d.000Z" % (i // 60 % 60, i % 60)
    return r
def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)

fleet = os.path.join(tmp, "fleet")
with open(os.path.join(tmp, "stream.jsonl"), "w") as stream:
    for i in range(1, nodes + 1):
        r = report(i, "gpu%d" % i)
        indent = [None, 1, 2][i % 3]
        write(os.path.join(fleet, "rack%d" % (i % 4), "row%d" % (i % 3), "gpu%d.json" % i), json.dumps(r, indent=indent))
        if i % 37 == 0:  # an older report of the same node: a duplicate
            r["run"]["started"] = "2026-11-01T10:00:00.000Z"
            write(os.path.join(fleet, "rack%d" % (i % 4), "gpu%d.old.json" % i), json.dumps(r))
        if i % 53 == 0:
            stream.write("a line of text between reports\n")
        if i % 71 == 0:
            stream.write(json.dumps(r)[:3000] + "\n")  # truncated
        stream.write(json.dumps(report(i, "gpu%d" % i)) + "\n")
# Broken and odd files among them.
write(os.path.join(fleet, "rack0", "corrupt.json"), '{"schema_version": 1, "findings": [}\n')
write(os.path.join(fleet, "rack1", "truncated.json"), json.dumps(report(1, "cut"), indent=1)[:5000])
write(os.path.join(fleet, "rack2", "empty.json"), "")
write(os.path.join(fleet, "rack3", "binary.json"), bytes(rng.randrange(256) for _ in range(70000)), "wb")
write(os.path.join(fleet, "rack3", "text.jsonl"), "not a report\n" * 100)
write(os.path.join(fleet, "rack0", "notes.txt"), "not read: not *.json\n")
write(os.path.join(fleet, "rack1", "bom.json"), ("\ufeff\n \n" + json.dumps(report(2, "gpu-bom"), indent=1) + "\n\n").encode(), "wb")
write(os.path.join(fleet, "rack2", "flat.json"), json.dumps(report(3, "gpu-flat"), indent=0))
write(os.path.join(fleet, "rack3", "two.jsonl"), json.dumps(report(4, "gpu-two-a")) + "\n" + json.dumps(report(5, "gpu-two-b")) + "\n")
write(os.path.join(fleet, "a", "b", "c", "d", "e", "deep.json"), json.dumps(report(6, "gpu-deep")))
os.makedirs(os.path.join(fleet, "empty-folder"), exist_ok=True)
# Over 4 MiB: read as a stream by the main thread, its reports handed over one by one.
with open(os.path.join(fleet, "rack2", "row1", "big.jsonl"), "w") as big:
    i = 0
    while big.tell() < (5 << 20):
        i += 1
        text = json.dumps(report(i, "big%d" % i))
        if i == 3:
            big.write("a line of text\n")
        if i == 5:
            big.write("\x01\x02binary\n")
        if i == 7:
            big.write(text[: len(text) // 2] + "\n")
        big.write(text + "\n")
# Many tiny files: a report cut to its summary and a few facts (a few KB), some broken.
small = {k: reports[0][k] for k in ("schema_version", "gpudoctor_version", "run", "summary", "findings")}
small["facts"] = dict(list(reports[0]["facts"].items())[:5])
for i in range(1, tiny + 1):
    small["run"]["host"] = "tiny%d" % i
    text = json.dumps(small) if i % 101 else ["", "{", "[]", "x"][i // 101 % 4]
    write(os.path.join(tmp, "tiny", "t%d" % (i % 10), "tiny%d.json" % i), text)
# Files just under 4 MiB (read whole on a worker), and one over (a stream).
os.makedirs(os.path.join(tmp, "large"), exist_ok=True)
for n in range(large + 1):
    limit = (4 << 20) - 200000 if n < large else (4 << 20) + 100000
    with open(os.path.join(tmp, "large", "large%d.jsonl" % n), "w") as f:
        i = 0
        while True:
            i += 1
            text = json.dumps(report(i + n, "large%d-%d" % (n, i))) + "\n"
            if f.tell() + len(text) > limit:
                break
            f.write(text)
PY

# name, stdin file, arguments: every --jobs, compared with --jobs 1 and the plain binary.
runs=0
check() {
  local name=$1 input=$2 jobs rc out
  shift 2
  for jobs in 1 2 3 8; do
    out=$tmp/out/$name.$jobs
    timeout 60 "${runner[@]}" "$tsan" fleet "$@" --jobs "$jobs" <"$input" >"$out.out" 2>"$out.err"
    rc=$?
    runs=$((runs + 1))
    [ $rc = 124 ] && fail "$name --jobs $jobs: still running after 60 s (a deadlock?)"
    grep -q 'ThreadSanitizer' "$out.err" && fail "$name --jobs $jobs: TSan report (exit $rc):
$(head -c 6000 "$out.err")"
    [ $rc = 66 ] && fail "$name --jobs $jobs: exit 66 (TSan's): $(head -c 2000 "$out.err")"
    [ $rc -le 2 ] || fail "$name --jobs $jobs: exit $rc: $(head -c 2000 "$out.err")"
    echo "$rc" >>"$out.out"
    if [ ! -f "$tmp/out/$name.expected" ]; then
      if [ -n "$plain" ]; then
        "$plain" fleet "$@" --jobs 1 <"$input" >"$tmp/out/$name.expected" 2>/dev/null
        echo "$?" >>"$tmp/out/$name.expected"
        cmp -s "$tmp/out/$name.expected" "$out.out" ||
          fail "$name --jobs $jobs: differs from $plain --jobs 1: $(diff "$tmp/out/$name.expected" "$out.out" | head -20)"
      else
        cp "$out.out" "$tmp/out/$name.expected"
      fi
    fi
    cmp -s "$tmp/out/$name.expected" "$out.out" ||
      fail "$name --jobs $jobs: differs from the first run: $(diff "$tmp/out/$name.expected" "$out.out" | head -20)"
  done
}
mkdir -p "$tmp/out"
for ((loop = 1; loop <= loops; loop++)); do
  check folder /dev/null "$tmp/fleet" --json
  check stdin "$tmp/stream.jsonl" - --json
  check paths "$tmp/fleet/rack3/two.jsonl" "$tmp/fleet/rack1" "$tmp/fleet/rack2/row1/big.jsonl" - "$tmp/tiny/t3" \
    "$tmp/fleet/a/b/c/d/e/deep.json" --verbose
  check tiny /dev/null "$tmp/tiny" --json
  check large /dev/null "$tmp/large" --json
done
# Fewer worker threads than asked (std::thread fails: the pool goes on with those it has, or on
# this thread alone): as root, an unprivileged user's RLIMIT_NPROC leaves room for 0, 1 or 2.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  chmod -R a+rX "$tmp"
  # nobody LIMIT COMMAND...: COMMAND as user 65534 with at most LIMIT tasks (threads included).
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups bash -c 'ulimit -u "$0" && exec "$@"')
  if "${nobody[@]}" 5 "${runner[@]}" "$tsan" --version >/dev/null 2>&1; then
    for limit in 1 2 3; do
      out=$tmp/out/nproc$limit
      timeout 60 "${nobody[@]}" "$limit" "${runner[@]}" "$tsan" fleet "$tmp/fleet" --json --jobs 8 </dev/null >"$out.out" 2>"$out.err"
      rc=$?
      runs=$((runs + 1))
      [ $rc = 124 ] && fail "--jobs 8 with RLIMIT_NPROC $limit: still running after 60 s (a deadlock?)"
      grep -q 'ThreadSanitizer' "$out.err" && fail "--jobs 8 with RLIMIT_NPROC $limit: TSan report (exit $rc):
$(head -c 6000 "$out.err")"
      echo "$rc" >>"$out.out"
      cmp -s "$tmp/out/folder.expected" "$out.out" ||
        fail "--jobs 8 with RLIMIT_NPROC $limit (exit $rc): differs: $(diff "$tmp/out/folder.expected" "$out.out" | head -20)"
    done
  else
    echo "tsan_fleet: skipped the runs with fewer threads: $tsan cannot be run as user 65534"
  fi
fi
# The inputs were read: a check that compares empty outputs would prove nothing.
python3 - "$tmp/out" "$nodes" "$tiny" <<'PY' || fail "the outputs do not count what was read"
import json, sys
out, nodes, tiny = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def fleet(name):
    return json.loads(open("%s/%s.1.out" % (out, name)).read().rsplit("\n", 2)[0])
f = fleet("folder")
assert f["nodes"] >= nodes and len(f["duplicates"]) >= nodes // 37 and len(f["unreadable"]) >= 8, (f["nodes"], len(f["unreadable"]))
s = fleet("stdin")
assert s["nodes"] == nodes, s["nodes"]
t = fleet("tiny")
assert t["nodes"] == tiny - tiny // 101, t["nodes"]
assert fleet("large")["nodes"] > 100
PY
echo "tsan_fleet: $runs runs of $tsan (--jobs 1 2 3 8, $loops rounds) without a TSan report or a difference" \
  "in $(($(date +%s) - started)) s"
