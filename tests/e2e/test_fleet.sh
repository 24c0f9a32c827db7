# gpudoctor fleet (issue 16): a fleet of real reports (replays of the captured hosts, copied under
# many node names) grouped by root cause from a folder, from files, from standard input (JSON
# Lines and indented reports one after another), with a node reported twice, redacted reports,
# --scope node, and hostile inputs (corrupt, truncated, empty, foreign, newer schema, binary,
# FIFO, unreadable, huge) that are listed with their reason and never stop or hang the run.
source "$(dirname "$0")/lib.sh"

# node_copy CAPTURE-REPORT OUT NODE [STARTED]: a copy of a report with run.host (and run.started) set
node_copy() {
  python3 - "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["run"]["host"] = sys.argv[3]
if len(sys.argv) > 4:
    r["run"]["started"] = sys.argv[4]
json.dump(r, open(sys.argv[2], "w"), indent=2)
EOF
}

# One report per captured host, as `gpudoctor --json --no-capture` writes them.
mkdir -p "$TMP/base"
for capture in h200-container-580.159.04 lxc-stale-uvm-major upgrade-without-reboot h200-live-cvd99; do
  "$GD" replay "$HOSTS/$capture.capture.json" --json --no-capture >"$TMP/base/$capture.json" 2>"$TMP/base/$capture.err"
  rc=$?
  checks=$((checks + 1))
  [ "$rc" -le 1 ] && [ -s "$TMP/base/$capture.json" ] || fail "replay of $capture: exit $rc"
done
# Each report says when it was made (run.started, UTC, milliseconds): what picks the newer of two.
checks=$((checks + 1))
python3 - "$TMP/base/lxc-stale-uvm-major.json" <<'EOF2' || fail "run.started of a fresh report is not now"
import datetime, json, re, sys
started = json.load(open(sys.argv[1]))["run"]["started"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", started), started
when = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600, started
EOF2
# The fleet: 12 healthy nodes, 5 with a stale uvm major, 2 upgraded without a reboot, 1 whose
# user hid the GPUs (an environment finding), in two racks.
fleet=$TMP/reports
mkdir -p "$fleet/rack1" "$fleet/rack2/sub"
for i in $(seq 1 12); do node_copy "$TMP/base/h200-container-580.159.04.json" "$fleet/rack1/gpu$i.json" "gpu$i"; done
for i in 13 14 15 16 17; do node_copy "$TMP/base/lxc-stale-uvm-major.json" "$fleet/rack2/gpu$i.json" "gpu$i"; done
for i in 18 19; do node_copy "$TMP/base/upgrade-without-reboot.json" "$fleet/rack2/sub/gpu$i.json" "gpu$i"; done
node_copy "$TMP/base/h200-live-cvd99.json" "$fleet/rack2/gpu20.json" gpu20
echo "not a report" >"$fleet/rack1/README.txt"  # not *.json: not read

# Text: one row per root cause, largest first, with a few names and the first fix step.
run_gd text fleet "$fleet"
expect_rc text 0
expect_out text '^20 nodes \(20 reports\): 12 healthy, 8 with 3 root causes$'
expect_out text '^NODES +ROOT CAUSE +SEVERITY +ACTION +NODE NAMES +FIRST FIX STEP$'
expect_out text '^   12  healthy +ok +none +gpu1 gpu2 gpu3 \+9 more +-$'
expect_out text '^    5  devices\.uvm-wrong-major +error +fix-config +gpu13 gpu14 gpu15 \+2 more +[^ ]'
expect_out text '^    2  driver\.userspace-version-mismatch +error +reboot +gpu18 gpu19 +[^ ]'
expect_out text '^    1  cuda\.visible-devices-hides-gpus +error +fix-environment +gpu20 +[^ ]'
checks=$((checks + 1))
# (the table ends at its first blank line: the facts that differ between the nodes follow it)
order=$(awk 'NR > 3 && !NF {exit} NR > 3 {print $2}' "$TMP/text.out" | tr '\n' ' ')
[ "$order" = "healthy devices.uvm-wrong-major driver.userspace-version-mismatch cuda.visible-devices-hides-gpus " ] ||
  fail "groups not largest first: $order"
# The first fix step is the report's own (cut to 120 characters in the table, whole with -v).
checks=$((checks + 1))
fix=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["fix"][0])' "$TMP/base/lxc-stale-uvm-major.json")
grep -qF -- "${fix:0:100}" "$TMP/text.out" || fail "text lacks the uvm group's first fix step: $fix"
run_gd text_v fleet "$fleet" -v
checks=$((checks + 1))
grep -qF -- "$fix" "$TMP/text_v.out" || fail "-v text lacks the uvm group's whole first fix step: $fix"
expect_out text_v '^ +nodes: gpu1 gpu2 gpu3 gpu4 gpu5 gpu6 gpu7 gpu8 gpu9 gpu10 gpu11 gpu12$'

# JSON: the contract, every node named once.
run_gd json fleet "$fleet" --json
expect_rc json 0
expect_json json 'f["fleet_schema_version"], f["nodes"], f["reports"], f["scope"]' "(1, 20, 20, 'all')"
expect_json json '[(g["root_cause"], g["count"]) for g in f["groups"]]' \
  "[(None, 12), ('devices.uvm-wrong-major', 5), ('driver.userspace-version-mismatch', 2), ('cuda.visible-devices-hides-gpus', 1)]"
expect_json json 'sorted(n for g in f["groups"] for n in g["nodes"]) == sorted("gpu%d" % i for i in range(1, 21))' True
expect_json json 'f["groups"][1]["nodes"], f["groups"][1]["severity"], f["groups"][1]["action"]' \
  "(['gpu13', 'gpu14', 'gpu15', 'gpu16', 'gpu17'], 'error', 'fix-config')"
expect_json json 'f["groups"][0]["severity"], f["groups"][0]["action"], f["groups"][0]["title"]' "('ok', 'none', 'no problems found')"
expect_json json 'f["unreadable"], f["duplicates"]' '([], [])'
run_gd format_json fleet "$fleet" --format json
expect_rc format_json 0
checks=$((checks + 1))
cmp -s "$TMP/json.out" "$TMP/format_json.out" || fail "--format json differs from --json"

# --scope node: the user's CUDA_VISIBLE_DEVICES is no node problem; gpu20 is healthy.
run_gd node fleet "$fleet" --json --scope node
expect_rc node 0
expect_json node 'f["scope"], [(g["root_cause"], g["count"]) for g in f["groups"]]' \
  "('node', [(None, 13), ('devices.uvm-wrong-major', 5), ('driver.userspace-version-mismatch', 2)])"
run_gd node_text fleet "$fleet" --scope node
expect_out node_text "the node's findings only: --scope node"

# Standard input: the reports one after another as --json prints them, and as JSON Lines; the
# same groups as from the folder.
groups='[(g["root_cause"], g["count"], g["nodes"]) for g in f["groups"]]'
want=$(json_field json "$groups")
find "$fleet" -name '*.json' | sort | xargs cat >"$TMP/concatenated.txt"
"$GD" fleet - --json <"$TMP/concatenated.txt" >"$TMP/stdin.out" 2>"$TMP/stdin.err"
rc=$?; sanitizer_clean stdin
expect_rc stdin 0
expect_json stdin "$groups" "$want"
find "$fleet" -name '*.json' | sort | xargs -n1 python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
  >"$TMP/reports.jsonl"
"$GD" fleet - --json <"$TMP/reports.jsonl" >"$TMP/jsonl.out" 2>"$TMP/jsonl.err"
rc=$?; sanitizer_clean jsonl
expect_rc jsonl 0
expect_json jsonl "$groups" "$want"
# Standard input left non-blocking by whoever made the pipe, and a writer that is slow to start:
# gpudoctor waits for the data as cat does, it does not give up at the first empty read.
{ sleep 1; cat "$TMP/reports.jsonl"; } | python3 -c '
import fcntl, os, sys
fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[1], sys.argv[1:])' "$GD" fleet - --json >"$TMP/nonblock.out" 2>"$TMP/nonblock.err"
rc=$?; sanitizer_clean nonblock
expect_rc nonblock 0
expect_json nonblock 'f["nodes"], f["unreadable"]' '(20, [])'
# ... and a file of JSON Lines named directly, next to a folder.
run_gd jsonl_file fleet "$TMP/reports.jsonl" --json
expect_json jsonl_file 'f["nodes"], f["reports"]' '(20, 20)'

# A node reported twice: the newer report counts (run.started), whether it is read first (gpu1)
# or last (gpu3), and the output says which one.
dup=$TMP/dup
mkdir -p "$dup"
node_copy "$TMP/base/lxc-stale-uvm-major.json" "$dup/a-new.json" gpu1 2026-12-02T08:00:00.000Z
node_copy "$TMP/base/h200-container-580.159.04.json" "$dup/b-old.json" gpu1 2026-12-01T08:00:00.000Z
node_copy "$TMP/base/lxc-stale-uvm-major.json" "$dup/c-old.json" gpu3 2026-12-01T08:00:00.000Z
node_copy "$TMP/base/h200-container-580.159.04.json" "$dup/d-new.json" gpu3 2026-12-01T09:00:00.000Z
run_gd dup fleet "$dup" "$fleet/rack1/gpu2.json" --json
expect_rc dup 0
expect_json dup 'f["nodes"], f["reports"], [(g["root_cause"], g["nodes"]) for g in f["groups"]]' \
  "(3, 5, [(None, ['gpu2', 'gpu3']), ('devices.uvm-wrong-major', ['gpu1'])])"
expect_json dup '[(d["node"], d["counted"], d["ignored"]) for d in f["duplicates"]]' \
  "[('gpu1', '$dup/a-new.json', ['$dup/b-old.json']), ('gpu3', '$dup/d-new.json', ['$dup/c-old.json'])]"
run_gd dup_text fleet "$dup"
expect_out dup_text '^2 nodes reported more than once; the newer report counts:$'
expect_out dup_text "^  gpu1: $dup/a-new.json counts, not $dup/b-old.json$"
expect_out dup_text "^  gpu3: $dup/d-new.json counts, not $dup/c-old.json$"

# Redacted reports (run.host "<host>") cannot be told apart: each is a node, named by its file.
red=$TMP/redacted
mkdir -p "$red"
"$GD" replay "$HOSTS/lxc-stale-uvm-major.capture.json" --json --no-capture --redact >"$red/one.json" 2>/dev/null
cp "$red/one.json" "$red/two.json"
run_gd redacted fleet "$red" --json
expect_rc redacted 0
expect_json redacted 'f["nodes"], f["groups"][0]["nodes"]' "(2, ['$red/one.json', '$red/two.json'])"

# Hostile inputs, next to two good reports: each is listed with its reason, the good ones count.
bad=$TMP/bad
mkdir -p "$bad"
cp "$fleet/rack1/gpu1.json" "$fleet/rack2/gpu13.json" "$bad/"
printf '{"schema_version": 1, "findings": [{"id": ' >"$bad/corrupt.json"
head -c 3000 "$fleet/rack1/gpu3.json" >"$bad/truncated.json"
: >"$bad/empty.json"
echo '{"name": "left-pad", "version": "1.3.0"}' >"$bad/package.json"
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); r["schema_version"] = 2; json.dump(r, open(sys.argv[2], "w"))' \
  "$fleet/rack1/gpu4.json" "$bad/newer.json"
head -c 20000 "$GD" >"$bad/binary.json"
mkfifo "$bad/fifo.json"
cp "$HOSTS/musl-only-no-loader.capture.json" "$bad/capture.json"
python3 -c 'import sys; open(sys.argv[1], "w").write("{\"schema_version\": 1, \"findings\": [], \"pad\": \"" + "x" * (65 << 20) + "\"}")' \
  "$bad/huge.json"
started=$(date +%s)
timeout 60 "$GD" fleet "$bad" "$TMP/does-not-exist" --json >"$TMP/hostile.out" 2>"$TMP/hostile.err"
rc=$?; sanitizer_clean hostile
checks=$((checks + 1))
[ $(( $(date +%s) - started )) -lt 30 ] || fail "the hostile fleet took over 30 s (blocked on the FIFO?)"
expect_rc hostile 1  # some inputs could not be read
expect_json hostile 'f["nodes"], sorted(n for g in f["groups"] for n in g["nodes"])' "(2, ['gpu1', 'gpu13'])"
reason() { echo "[u['reason'] for u in f['unreadable'] if u['path'] == '$1']"; }
expect_json hostile "$(reason "$bad/corrupt.json")" \
  "['truncated: the input ends inside this report (42 bytes of it)']"
expect_json hostile "len($(reason "$bad/truncated.json")), $(reason "$bad/truncated.json")[0][:10]" "(1, 'truncated:')"
expect_json hostile "$(reason "$bad/empty.json")" "['empty: no report in it']"
expect_json hostile "$(reason "$bad/package.json")" "['not a gpudoctor report: it has no schema_version']"
expect_json hostile "$(reason "$bad/newer.json")" \
  "['schema_version 2 is newer than this gpudoctor reads (1): read it with a newer gpudoctor']"
expect_json hostile "$(reason "$bad/binary.json")" "['not JSON: binary data (an ELF file)']"
expect_json hostile "$(reason "$bad/fifo.json")" "['a FIFO, not a regular file (pipe it to \`-\` instead)']"
expect_json hostile "$(reason "$bad/capture.json")[0][:36]" "a gpudoctor capture, not a report (\`"
expect_json hostile "$(reason "$bad/huge.json")[0][:45]" "over the limit of 64 MiB for one report (6815"
expect_json hostile "$(reason "$TMP/does-not-exist")" "['No such file or directory']"
checks=$((checks + 1))
grep -qiE 'terminate|exception|abort|segmentation' "$TMP/hostile.err" && fail "hostile run: $(head -3 "$TMP/hostile.err")"
# Memory stays bounded by one report, not the 65 MiB file nor the count.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v "$GD" fleet "$bad" >/dev/null 2>"$TMP/time.err"
  rss=$(awk -F: '/Maximum resident/ {gsub(/ /, "", $2); print $2}' "$TMP/time.err")
  checks=$((checks + 1))
  [ -n "$rss" ] && [ "$rss" -lt 200000 ] || fail "peak RSS ${rss:-?} KB reading the hostile folder (limit 200000)"
else
  skip "no /usr/bin/time: the hostile folder's peak memory is not measured"
fi
# The text lists them after the groups.
run_gd hostile_text fleet "$bad"
expect_rc hostile_text 1
expect_out hostile_text '^9 inputs could not be read:$'
expect_out hostile_text "^  $bad/package.json: not a gpudoctor report: it has no schema_version$"

# Foreign files are never quoted (issue 24 item 4): a non-JSON input is named by its file, its
# line and a reason, never by its bytes (a token in a URL, an AWS key id, a netrc password, an
# /etc/shadow line), and a link inside a folder that leads out of it is not followed (one named
# on the command line is read).
sec=$TMP/secrets
mkdir -p "$sec/reports/sub" "$TMP/outside"
cp "$fleet/rack1/gpu1.json" "$sec/reports/gpu1.json"
printf 'machine example.com login alice password hunter2netrcsecret\n' >"$TMP/outside/netrc"
printf 'root:$6$saltsalt$shadowhashvalue0123:19000:0:99999:7:::\n' >"$TMP/outside/shadow"
printf 'AKIAIOSFODNN7EXAMPLE\nhttps://user:ghp_tokenvalue0123456789@example.com/x\n' >"$sec/reports/creds.json"
printf '{"key": AKIAIOSFODNN7EXAMPL2, "x": 1}\n' >"$sec/reports/badliteral.json"
printf '{"url": "https://u:ghp_tokeninastring99@example.com\n"}\n' >"$sec/reports/badstring.json"
printf '\x01\x02password=hunter2binarysecret\n' >"$sec/reports/binary.json"
ln -s "$TMP/outside/shadow" "$sec/reports/shadow.json"
ln -s ../../outside/netrc "$sec/reports/netrc.jsonl"
ln -s ../gpu1.json "$sec/reports/sub/inside.json"  # a link within the folder: read
secrets='AKIAIOSFODNN7EXAMPL|hunter2|shadowhash|ghp_token|saltsalt|alice'
run_gd secrets fleet "$sec/reports" --json
expect_rc secrets 1
run_gd secrets_text fleet "$sec/reports"
expect_rc secrets_text 1
"$GD" fleet - --json <"$sec/reports/creds.json" >"$TMP/secrets_stdin.out" 2>"$TMP/secrets_stdin.err"
rc=$?; sanitizer_clean secrets_stdin
expect_rc secrets_stdin 2
run_gd secrets_named fleet "$sec/reports/shadow.json" "$sec/reports/netrc.jsonl" --json
expect_rc secrets_named 2
for run in secrets secrets_text secrets_stdin secrets_named; do
  checks=$((checks + 1))
  ! grep -qE "$secrets" "$TMP/$run.out" "$TMP/$run.err" ||
    fail "$run quotes a foreign file: $(grep -hoE ".{0,30}($secrets).{0,10}" "$TMP/$run.out" "$TMP/$run.err" | head -3)"
done
expect_json secrets "$(reason "$sec/reports/creds.json")" "['not JSON: text (2 lines)']"
expect_json secrets "$(reason "$sec/reports/binary.json")" "['not JSON: binary data']"
expect_json secrets "$(reason "$sec/reports/badliteral.json")" \
  "['not valid JSON: parse error at line 1, column 9: syntax error while parsing value - invalid literal']"
expect_json secrets "len($(reason "$sec/reports/badstring.json"))" 1
expect_json secrets "$(reason "$sec/reports/shadow.json")" \
  "['a symbolic link to a file outside $sec/reports: not followed (name it on the command line to read it)']"
expect_json secrets "$(reason "$sec/reports/netrc.jsonl")" \
  "['a symbolic link to a file outside $sec/reports: not followed (name it on the command line to read it)']"
expect_json secrets 'f["nodes"], f["reports"], [d["node"] for d in f["duplicates"]]' "(1, 2, ['gpu1'])"
expect_json secrets_named '[(u["path"], u["reason"]) for u in f["unreadable"]]' \
  "[('$sec/reports/shadow.json', 'not JSON: text (1 line)'), ('$sec/reports/netrc.jsonl', 'not JSON: text (1 line)')]"
expect_json secrets_stdin '[(u["path"], u["reason"]) for u in f["unreadable"]]' "[('-:1', 'not JSON: text (2 lines)')]"

# ... and a link swapped in while the folder is read is refused, never followed: a loop swaps
# swap.json between a report of this folder's and a link to a report outside it (node
# "outside-node"), 200 fleet runs read the folder meanwhile, and none counts the outside report.
race=$TMP/race
mkdir -p "$race/in"
node_copy "$fleet/rack1/gpu1.json" "$TMP/outside/outside.json" outside-node
node_copy "$fleet/rack1/gpu1.json" "$race/inside.json" inside-node
cp "$race/inside.json" "$race/in/swap.json"
(
  while :; do
    ln -sfn "$TMP/outside/outside.json" "$race/in/.swap.tmp" && mv -fT "$race/in/.swap.tmp" "$race/in/swap.json"
    cp "$race/inside.json" "$race/in/.swap.tmp" && mv -fT "$race/in/.swap.tmp" "$race/in/swap.json"
  done
) 2>/dev/null &
swapper=$!
leaked=0
for _ in $(seq 200); do
  "$GD" fleet "$race/in" --json 2>/dev/null | grep -q outside-node && leaked=$((leaked + 1))
done
kill "$swapper"
wait "$swapper" 2>/dev/null
checks=$((checks + 1))
[ "$leaked" = 0 ] || fail "a link swapped in during the walk was followed out of the folder in $leaked of 200 runs"

# An unreadable file (as an ordinary user).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  open=$(mktemp -d /tmp/gd-fleet-XXXXXX)
  chmod 755 "$open"
  cp "$fleet/rack1/gpu1.json" "$open/ok.json"
  cp "$fleet/rack1/gpu2.json" "$open/secret.json"
  chmod 644 "$open/ok.json"
  chmod 000 "$open/secret.json"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$GD" fleet "$open" --json >"$TMP/perm.out" 2>"$TMP/perm.err"
  rc=$?; sanitizer_clean perm
  expect_rc perm 1
  expect_json perm "f['nodes'], [u['reason'] for u in f['unreadable']]" "(1, ['Permission denied'])"
  rm -rf "$open"
else
  skip "needs root and setpriv to read a file as a user who may not"
fi

# Nothing readable: exit 2, one error line, and the list on stdout.
run_gd none fleet "$bad/corrupt.json" "$bad/empty.json"
expect_rc none 2
expect_err_lines none 1
expect_err none '^gpudoctor: error: no report could be read from 2 inputs \(listed above\)$'
expect_out none '^2 inputs could not be read:$'
mkdir -p "$TMP/emptydir"
run_gd emptydir fleet "$TMP/emptydir"
expect_rc emptydir 2
expect_out emptydir 'no \*\.json or \*\.jsonl file in this folder'
# A corrupt line in a stream of JSON Lines costs that line only.
{ head -n 3 "$TMP/reports.jsonl"; echo '{"schema_version": 1, "findings": [ garbage'; tail -n +4 "$TMP/reports.jsonl"; } |
  "$GD" fleet - --json >"$TMP/stream.out" 2>"$TMP/stream.err"
rc=$?; sanitizer_clean stream
expect_rc stream 1
expect_json stream 'f["nodes"], [u["path"] for u in f["unreadable"]]' "(20, ['-:4'])"
# Memory is bounded by one report, not by the count: 1,000 real reports (~80 KB each) cost about
# what 10 do, and are read well within the 2 s the issue asks for on the 2-core machine
# (bench/fleet.sh measures it; 15 s here leaves room for a loaded CI machine and still catches
# work that grows faster than the count). Not in the sanitizer build: its memory is ASan's.
if [ "${GD_SANITIZED:-0}" != 1 ] && [ -x /usr/bin/time ]; then
  python3 - "$TMP/base/h200-container-580.159.04.json" "$TMP/many" <<'EOF2'
import json, os, sys
r = json.load(open(sys.argv[1]))
for count in (10, 1000):
    folder = os.path.join(sys.argv[2], str(count))
    os.makedirs(folder)
    for i in range(count):
        r["run"]["host"] = "node%05d" % i
        with open(os.path.join(folder, "node%05d.json" % i), "w") as f:
            json.dump(r, f, indent=2)
EOF2
  peak_kb() {  # FOLDER: peak RSS in KiB and wall ms of a fleet run over it
    /usr/bin/time -f '%M %e' -o "$TMP/time.txt" "$GD" fleet "$1" --json >"$TMP/many.out" 2>/dev/null
    awk '{ print $1, int($2 * 1000) }' "$TMP/time.txt"
  }
  read -r rss10 _ < <(peak_kb "$TMP/many/10")
  read -r rss1000 wall < <(peak_kb "$TMP/many/1000")
  echo "fleet of 1,000 reports: $wall ms, peak RSS $rss1000 KiB (10 reports: $rss10 KiB)"
  checks=$((checks + 1))
  [ $((rss1000 - rss10)) -lt 8192 ] || fail "1,000 reports took $rss1000 KiB at peak, 10 took $rss10 KiB: memory grows with the reports"
  checks=$((checks + 1))
  [ "$wall" -lt 15000 ] || fail "1,000 reports took $wall ms"
  expect_json many 'f["nodes"], f["groups"][0]["count"], f["unreadable"]' '(1000, 1000, [])'
  rm -rf "$TMP/many"
fi

# The README's Fleets recipe (### One view of the fleet): every `gpudoctor` command of its sh
# blocks runs on a sweep laid out as `srun --output='sweep/%N.json'` leaves it (the srun line
# itself needs a cluster), and prints what the README shows (the fix steps and finding titles
# aside: they are the rules' text, checked by the rules' own tests).
# Its twin pair are one H200 container captured healthy and with /dev/null bound over
# /dev/nvidia-uvm.
sweep=$TMP/readme/sweep
mkdir -p "$sweep"
for capture in h200-live-full h200-live-uvm-null; do
  "$GD" replay "$HOSTS/$capture.capture.json" --json --no-capture >"$TMP/base/$capture.json" 2>/dev/null
done
for i in $(seq 1 12); do node_copy "$TMP/base/h200-live-full.json" "$sweep/gpu$i.json" "gpu$i"; done
node_copy "$TMP/base/h200-live-uvm-null.json" "$sweep/gpu13.json" gpu13
for i in 14 15 16 17; do node_copy "$TMP/base/lxc-stale-uvm-major.json" "$sweep/gpu$i.json" "gpu$i"; done
for i in 18 19; do node_copy "$TMP/base/upgrade-without-reboot.json" "$sweep/gpu$i.json" "gpu$i"; done
node_copy "$TMP/base/h200-live-cvd99.json" "$sweep/gpu20.json" gpu20
python3 - "$SRC/README.md" "$TMP/readme" <<'EOF2'
import os, re, sys
text = open(sys.argv[1]).read()
section = re.split(r"\n##+ ", text.split("### One view of the fleet", 1)[1], maxsplit=1)[0]
blocks = re.findall(r"```(\w*)\n(.*?)```", section, re.S)
n = 0
for i, (lang, body) in enumerate(blocks):
    if lang != "sh":
        continue
    commands = [l for l in body.splitlines() if re.match(r"(cat .*\| )?gpudoctor ", l)]
    if not commands:
        continue
    n += 1
    open(os.path.join(sys.argv[2], "cmd%d.sh" % n), "w").write(commands[-1] + "\n")
    shown = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "" else ""
    open(os.path.join(sys.argv[2], "shown%d.txt" % n), "w").write(shown)
EOF2
normalize() {  # the fix column of the fleet table and the titles of the diff's findings cut off
  python3 -c '
import re, sys
cut = None
for line in sys.stdin.read().splitlines():
    if line.startswith("NODES "):
        cut = line.index("FIRST FIX STEP")
    elif not line.strip():
        cut = None
    if cut is not None:
        line = line[:cut]
    line = re.sub(r"^(  (error|warning|info) \[[^]]*\]).*", r"\1", line)
    print(line.rstrip())'
}
mkdir -p "$TMP/bin"
ln -s "$(cd "$(dirname "$GD")" && pwd)/$(basename "$GD")" "$TMP/bin/gpudoctor"
checks=$((checks + 1))
[ -f "$TMP/readme/cmd1.sh" ] && [ -f "$TMP/readme/cmd2.sh" ] || fail "README's Fleets section lacks its fleet and diff recipes"
for cmd in "$TMP"/readme/cmd*.sh; do
  shown=${cmd%.sh}.txt; shown=${shown/cmd/shown}
  checks=$((checks + 1))
  [ -s "$shown" ] || { fail "README: no output shown after $(cat "$cmd")"; continue; }
  got=$(cd "$TMP/readme" && PATH=$TMP/bin:$PATH bash "$cmd" 2>&1)
  checks=$((checks + 1))
  diff <(normalize <"$shown") <(printf '%s\n' "$got" | normalize) >"$TMP/readme.diff" ||
    { fail "README's output of '$(cat "$cmd")' is not what it prints:"; head -20 "$TMP/readme.diff"; }
done

# Usage: a format fleet does not print; no path.
run_gd npd fleet "$fleet" --format npd
expect_rc npd 2
run_gd nopath fleet
expect_rc nopath 2
run_gd textfile fleet "$fleet" --textfile "$TMP/fleet.prom"
expect_rc textfile 2
expect_err textfile "^gpudoctor: error: --textfile writes a node's own metrics; fleet prints on stdout only$"
checks=$((checks + 1))
[ ! -e "$TMP/fleet.prom" ] || fail "fleet --textfile wrote $TMP/fleet.prom"
# A diagnosis's options are refused, never silently ignored: fleet reads reports, before or after
# its name on the command line.
run_gd probe_opt fleet "$fleet" --no-cuda
expect_rc probe_opt 2
expect_err probe_opt "^gpudoctor: error: --no-cuda is an option of check and replay: fleet reads reports, it does not diagnose a host \\(see gpudoctor --help\\)$"
run_gd probe_before --redact fleet "$fleet"
expect_rc probe_before 2
expect_err probe_before "^gpudoctor: error: --redact is an option of check and replay: fleet reads reports"
run_gd rules_opt fleet "$fleet" --rules "$TMP"
expect_rc rules_opt 2
expect_err rules_opt "^gpudoctor: error: --rules is an option of check and replay: fleet reads reports"
finish
