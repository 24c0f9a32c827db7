# --redact and the accounts a capture holds (issue 24 item 11): /etc/passwd and /etc/group lines
# keep their uid and gid numbers, the shape of the home folders and the shells, and lose the
# names of people's accounts (uid or gid 1000 to 59999, as useradd gives them), every real name
# (GECOS) and every member list. Checked live on this machine and on a replay of a capture
# whose accounts are planted, where a device node refused to the user makes gpudoctor read
# /etc/group for the node's group: the redacted report still names that group (video) and the
# redacted capture replays to the same findings.
source "$(dirname "$0")/lib.sh"

# accounts FILE PATH: the lines of PATH ("/etc/passwd") in the capture of the report FILE, one a line.
accounts() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
entry = r.get("capture", r)["paths"].get(sys.argv[2], {})
for line in entry.get("read", {}).get("lines", []):
    if line:
        print(line)' "$1" "$2"
}
finding_ids() { python3 -c 'import json,sys; print(" ".join(sorted(f["id"] for f in json.load(open(sys.argv[1]))["findings"])))' "$1"; }

# 1. Live, on this machine: its own /etc/passwd as the capture recorded it.
run_gd live --no-cuda --json --redact
checks=$((checks + 1))
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "live: exit $rc: $(head -3 "$TMP/live.err")"
accounts "$TMP/live.out" /etc/passwd >"$TMP/live.passwd"
decoded_strings "$TMP/live.out" >"$TMP/live.decoded"
if [ ! -s "$TMP/live.passwd" ]; then
  skip "the live run read no /etc/passwd (none on this machine?)"
else
  python3 - /etc/passwd "$TMP/live.passwd" "$TMP/live.decoded" <<'PY' >"$TMP/live.check" 2>&1
import re, sys
real = [l.rstrip("\n").split(":") for l in open(sys.argv[1]) if l.count(":") >= 6]
got = [l.rstrip("\n").split(":") for l in open(sys.argv[2])]
text = open(sys.argv[3]).read()
people = {f[0] for f in real if 1000 <= int(f[2]) < 60000}
problems = []
if len(got) != len(real):
    problems.append("%d lines, /etc/passwd has %d" % (len(got), len(real)))
for f, g in zip(real, got):
    if len(g) != 7:
        problems.append("not 7 fields: %r" % ":".join(g)); continue
    if g[2:4] != f[2:4] or g[6] != f[6]:
        problems.append("uid, gid or shell changed: %r for %r" % (":".join(g), f[0]))
    if g[4]:
        problems.append("a real name (GECOS) kept: %r" % ":".join(g))
    if f[0] in people and g[0] != "<user>":
        problems.append("a person's name kept: %r" % g[0])
    if f[0] not in people and g[0] != f[0]:
        problems.append("a system account renamed: %r -> %r" % (f[0], g[0]))
    if g[5] != f[5].replace("/" + f[0], "/<user>") if f[0] in people else g[5] != f[5]:
        problems.append("home %r for %r" % (g[5], f[5]))
for name in people:
    if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(name), text):
        problems.append("the name %r is still in the report" % name)
for f in real:  # people's real names (system accounts' are words such as "polkit", found in paths)
    if f[0] in people and len(f[4].strip(",")) >= 3 and f[4].split(",")[0] in text:
        problems.append("the real name %r is still in the report" % f[4])
if problems:
    print("\n".join(problems))
PY
  checks=$((checks + 1))
  [ ! -s "$TMP/live.check" ] || fail "live: the redacted capture's /etc/passwd: $(head -5 "$TMP/live.check")"
fi

# 2. A replay of a capture with planted accounts: the H200 whose nodes are root:video 0660, run
#    as uid 1000 outside the video group (the devices.open-eacces rule host), so that /etc/group
#    is read for the nodes' group.
python3 - "$HOSTS/h200-live-full.capture.json" "$SRC/tests/rules/devices.open-eacces/hosts/positive-user-not-in-video-group.host.json" \
  "$TMP/planted.capture.json" <<'PY'
import json, sys
capture = json.load(open(sys.argv[1]))
host = json.load(open(sys.argv[2]))
capture["identity"] = host["identity"]
capture["paths"].update(host["paths"])
for path, edits in host.get("replace_lines", {}).items():
    lines = capture["paths"][path]["read"]["lines"]
    for old, new in edits.items():
        lines[lines.index(old)] = new
capture["helper_runs"] = host["helper_runs"]
capture["paths"]["/etc/passwd"] = {"read": {"lines": [
    "root:x:0:0:root:/root:/bin/bash",
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
    "svcgpu:x:998:998:GPU burn-in (ask Jane Roe):/var/lib/svcgpu:/usr/sbin/nologin",
    "alice:x:1000:1000:Alice Liddell,Room 42,555-0100,:/home/alice:/bin/bash",
    "bobsmith:$6$Zq0salt$Kd9hashhashhash:1001:1001:Robert Smith:/data/users/bobsmith:/bin/zsh",
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    ""]}}
capture["paths"]["/etc/group"] = {"read": {"lines": [
    "root:x:0:",
    "video:x:44:alice,bobsmith",
    "render:x:993:svcgpu",
    "alice:x:1000:",
    "bobsmith:!:1001:",
    "mlteam:x:2000:alice,bobsmith",
    ""]}}
json.dump(capture, open(sys.argv[3], "w"))
PY
run_gd planted replay "$TMP/planted.capture.json" --json
run_gd redacted replay "$TMP/planted.capture.json" --json --redact
checks=$((checks + 1))
[ "$(finding_ids "$TMP/planted.out")" = "$(finding_ids "$TMP/redacted.out")" ] ||
  fail "--redact changed the findings: $(finding_ids "$TMP/redacted.out") vs $(finding_ids "$TMP/planted.out")"
checks=$((checks + 1))
case " $(finding_ids "$TMP/planted.out") " in
  *" devices.open-eacces "*) ;;
  *) fail "the planted capture does not find devices.open-eacces: $(finding_ids "$TMP/planted.out")" ;;
esac
decoded_strings "$TMP/redacted.out" >"$TMP/redacted.decoded"
for word in alice Alice Liddell bobsmith Robert Smith "Jane Roe" "Room 42" 555-0100 Kd9hash mlteam; do
  checks=$((checks + 1))
  ! grep -aqF -- "$word" "$TMP/redacted.decoded" ||
    fail "--redact left '$word': $(grep -aF -- "$word" "$TMP/redacted.decoded" | head -3 | cut -c1-200)"
done
checks=$((checks + 1))
[ "$(accounts "$TMP/redacted.out" /etc/passwd)" = "root:x:0:0::/root:/bin/bash
daemon:x:1:1::/usr/sbin:/usr/sbin/nologin
svcgpu:x:998:998::/var/lib/svcgpu:/usr/sbin/nologin
<user>:x:1000:1000::/home/<user>:/bin/bash
<user>:x:1001:1001::/data/users/<user>:/bin/zsh
nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin" ] || fail "the redacted /etc/passwd: $(accounts "$TMP/redacted.out" /etc/passwd)"
checks=$((checks + 1))
[ "$(accounts "$TMP/redacted.out" /etc/group)" = "root:x:0:
video:x:44:
render:x:993:
<user>:x:1000:
<user>:!:1001:
<group>:x:2000:" ] || fail "the redacted /etc/group: $(accounts "$TMP/redacted.out" /etc/group)"
# The node's group is still named where the report explains the refusal.
expect_json redacted '[f["value"] for k, f in r["facts"].items() if k == "dev.eacces_nodes"][0][0].count("(group video)")' 1
# The redacted capture replays to the same findings.
run_gd replayed replay "$TMP/redacted.out" --json
checks=$((checks + 1))
[ "$(finding_ids "$TMP/replayed.out")" = "$(finding_ids "$TMP/planted.out")" ] ||
  fail "the redacted capture replays to other findings: $(finding_ids "$TMP/replayed.out") vs $(finding_ids "$TMP/planted.out")"
finish
