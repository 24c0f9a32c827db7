# Issue 24 item 1: host strings never control the terminal. Folder and file names of a --root
# tree, an image's OCI variables, the caller's environment, a capture's files and libcuda's
# strings, and the reports fleet and diff read can hold escape sequences, BEL, C1 controls,
# bidi overrides, newlines and invalid UTF-8; the text output (report, fleet, diff) shows them
# escaped (\x1b, \n, U+202E, \xff) and never writes the bytes, so no line can be forged.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# What the strings hold: an OSC title sequence ended by BEL, a CSI colour, a C1 CSI (U+009B,
# C2 9B), a right-to-left override (U+202E), a left-to-right isolate (U+2066), a newline that
# would start a forged "[ok]" line, a carriage return and an invalid UTF-8 byte (0xff).
EVIL=$(printf '\033]0;pwned\007\033[31m\302\23332m\342\200\256\342\201\246\r\n[ok] Everything is fine\377')
# As a folder or file name (anything but "/" and NUL), and without the invalid byte for JSON.
EVIL_JSON=$(printf '\033]0;pwned\007\033[31m\302\23332m\342\200\256\342\201\246\r\n[ok] Everything is fine')

# terminal_clean NAME [COLOR]: stdout of the run NAME holds no control byte but newline (with
# COLOR: no ESC but gpudoctor's own SGR colours), no C1 control, no bidi control, valid UTF-8,
# and no line that starts with the forged "[ok] Everything is fine".
terminal_clean() {
  checks=$((checks + 1))
  local verdict
  verdict=$("$PY" - "$TMP/$1.out" "${2:-}" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
color = sys.argv[2] == "color"
problems = []
if color:
    # gpudoctor's own colours (render_text.cpp's palette) are the only escape sequences allowed.
    data_wo = re.sub(rb"\x1b\[(0|1|2|31|32|33|34)m", b"", data)
else:
    data_wo = data
for b in sorted(set(data_wo)):
    if (b < 0x20 and b != 0x0a) or b == 0x7f:
        problems.append("byte 0x%02x (%d times)" % (b, data_wo.count(bytes([b]))))
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    problems.append("invalid UTF-8: %s" % e)
    text = data.decode("utf-8", "replace")
for c in sorted(set(text)):
    o = ord(c)
    if 0x80 <= o <= 0x9f or o in (0x061c, 0x200e, 0x200f, 0x2028, 0x2029) or 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069:
        problems.append("U+%04X" % o)
for line in text.split("\n"):
    if re.sub(r"\x1b\[[0-9]+m", "", line).startswith("[ok] Everything"):
        problems.append("forged line: %r" % line[:60])
print("ok" if not problems else "; ".join(problems))
PY
)
  [ "$verdict" = ok ] || fail "$1: the terminal gets $verdict"
}

# expect_escaped NAME: the hostile string is visible in its escaped form.
expect_escaped() {
  checks=$((checks + 1))
  grep -qF -- '\x1b]0;pwned\x07\x1b[31mU+009B32mU+202EU+2066\r\n[ok] Everything is fine' "$TMP/$1.out" ||
    { fail "$1: stdout lacks the escaped string"; grep -aF 'pwned' "$TMP/$1.out" | head -5 | cat -A | sed 's/^/    /'; }
}

# 1. A --root tree: a libcuda whose file name is the string (the Driver libraries line, the
#    finding, its evidence) and CUDA_VISIBLE_DEVICES, a variable the allowlist passes, holding it.
host=$TMP/host
mkdir -p "$host/usr/lib/x86_64-linux-gnu" "$host/etc"
printf 'ELF' >"$host/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05$EVIL"
ln -s "libcuda.so.580.95.05$EVIL" "$host/usr/lib/x86_64-linux-gnu/libcuda.so.1"
CUDA_VISIBLE_DEVICES="0$EVIL" run_gd root --root "$host"
expect_rc root 1
terminal_clean root
expect_escaped root
expect_out root '^\[X\] Driver libraries: libcuda\.so\.1 .* /usr/lib/x86_64-linux-gnu/libcuda\.so\.1 cannot be loaded'
expect_out root '^error \[libraries\.libcuda-unloadable\] '
expect_out root 'CUDA_VISIBLE_DEVICES=0\\x1b\]0;pwned'
expect_out root '\[ok\] Everything is fine\\xff'
# -v prints every fact, with the same escaping.
CUDA_VISIBLE_DEVICES="0$EVIL" run_gd root_verbose --root "$host" -v
terminal_clean root_verbose
expect_out root_verbose '^  env\.cuda_visible_devices = 0\\x1b'
# Colours asked for: gpudoctor's own escape sequences stay, the host's do not.
CUDA_VISIBLE_DEVICES="0$EVIL" run_gd root_color --root "$host" --color always
terminal_clean root_color color
expect_escaped root_color
checks=$((checks + 1))
grep -q $'\033\\[31m' "$TMP/root_color.out" || fail "root_color: --color always lost gpudoctor's own colours"
# A live run of this machine (without the CUDA helper) reads the same variable.
CUDA_VISIBLE_DEVICES="0$EVIL" run_gd live --no-cuda
terminal_clean live
expect_escaped live
# JSON keeps the value as it is (escaped by JSON, not altered).
CUDA_VISIBLE_DEVICES="0$EVIL_JSON" run_gd root_json --root "$host" --json --no-capture
expect_fact root_json env.cuda_visible_devices "$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "0$EVIL_JSON")"

# 2. A pre-flight: the venv folder under the search path (/opt) is named with the string, and the
#    image's OCI variables (its config.json) hold it.
"$PY" "$SRC/tests/e2e/make_image_tree.py" "$TMP/image" cu130 || fail "make_image_tree cu130"
mv "$TMP/image/rootfs/opt/venv" "$TMP/image/rootfs/opt/venv$EVIL"
"$PY" - "$TMP/image/config.json" "$EVIL_JSON" <<'PY'
import json, sys
path, evil = sys.argv[1], sys.argv[2]
config = json.load(open(path))
config["process"]["env"] = [e for e in config["process"]["env"] if not e.startswith(("PATH=", "NVIDIA_VISIBLE_DEVICES="))]
config["process"]["env"] += ["PATH=/usr/bin:/bin", "NVIDIA_VISIBLE_DEVICES=all" + evil, "CUDA_HOME=/usr/local/cuda" + evil]
json.dump(config, open(path, "w"))
PY
run_gd preflight --root "$TMP/image/rootfs" --target-gpu H200 --target-driver 580.95.05
terminal_clean preflight
expect_escaped preflight
expect_out preflight '^\[.\] Python / PyTorch: .*/opt/venv\\x1b\]0;pwned'
expect_out preflight 'NVIDIA_VISIBLE_DEVICES=all\\x1b\]0;pwned'

# 3. A capture (replay): libcuda's device name and cuInit's text hold the string (the helper's
#    reply is one line per value, so no newline there), and so do LD_LIBRARY_PATH and the
#    kernel module's version file.
"$PY" - "$HOSTS/h200-live-580.159.04.capture.json" "$TMP/evil.capture.json" "$EVIL_JSON" <<'PY'
import json, sys
src, dst, evil = sys.argv[1:4]
capture = json.load(open(src))
one_line = evil.replace("\r", "").replace("\n", "")
for run in capture["helper_runs"]:
    lines = run["reply"]["lines"]
    for i, line in enumerate(lines):
        if line.startswith(("cuda.device.0.name\t", "nvml.device.0.name\t")):
            lines[i] = line + one_line
capture["env"]["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64" + evil
json.dump(capture, open(dst, "w"))
PY
run_gd replay replay "$TMP/evil.capture.json"
terminal_clean replay
expect_escaped replay
expect_out replay 'GPU 0: NVIDIA H200\\x1b\]0;pwned\\x07\\x1b\[31mU\+009B32mU\+202EU\+2066\[ok\] Everything is fine'
run_gd replay_verbose replay "$TMP/evil.capture.json" -v
terminal_clean replay_verbose
expect_escaped replay_verbose

# 4. fleet and diff over reports that hold the string: the node's name, a finding's id, title and
#    first fix step, a fact's value.
"$GD" replay "$HOSTS/lxc-stale-uvm-major.capture.json" --json --no-capture >"$TMP/stale.json" 2>/dev/null
"$GD" replay "$HOSTS/h200-container-580.159.04.capture.json" --json --no-capture >"$TMP/good.json" 2>/dev/null
mkdir -p "$TMP/fleet"
"$PY" - "$TMP/stale.json" "$TMP/fleet/evil.json" "$EVIL_JSON" <<'PY'
import json, sys
src, dst, evil = sys.argv[1:4]
r = json.load(open(src))
r["run"]["host"] = "gpu7" + evil
f = r["findings"][0]
f["id"] = "devices.uvm" + evil
f["title"] = "title" + evil
f["fix"][0] = "fix" + evil
r["facts"]["dev.uvm.major"]["value"] = "major" + evil
json.dump(r, open(dst, "w"))
PY
cp "$TMP/good.json" "$TMP/fleet/good.json"
run_gd fleet fleet "$TMP/fleet"
terminal_clean fleet
expect_out fleet 'gpu7\\x1b\]0;pwned'
expect_out fleet 'devices\.uvm\\x1b\]0;pwned'
run_gd fleet_verbose fleet "$TMP/fleet" -v
terminal_clean fleet_verbose
expect_escaped fleet_verbose
run_gd diff diff "$TMP/good.json" "$TMP/fleet/evil.json"
expect_rc diff 1
terminal_clean diff
expect_escaped diff
expect_out diff '^B: .*, node gpu7\\x1b\]0;pwned'
run_gd diff_verbose diff "$TMP/good.json" "$TMP/fleet/evil.json" -v
terminal_clean diff_verbose
# diff's JSON keeps the value as it is.
run_gd diff_json diff "$TMP/good.json" "$TMP/fleet/evil.json" --json
expect_json diff_json 'd["b"]["host"] == "gpu7" + '"$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$EVIL_JSON")" True

finish
