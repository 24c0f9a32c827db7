#!/usr/bin/env bash
# Issue 24 item 1 on the real H200: the healthy report holds nothing the terminal sanitizer
# (src/util/terminal_text.cpp) had to escape, so it is byte for byte what it was; and a live run
# whose CUDA_VISIBLE_DEVICES and LD_LIBRARY_PATH hold an escape sequence, a C1 CSI, U+202E and a
# newline before "[ok] Everything is fine" writes none of them (the real libcuda and NVML see the
# variables). Nothing of the GPU's settings is changed. Results in $OUT/terminal.
#   bash bench/device_terminal_output.sh   (from the repository, the binary at build/gpudoctor)
set -u
R=$OUT/terminal; mkdir -p $R /tmp/gd-bin
cp build/gpudoctor /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/gpudoctor
GD=/tmp/gd-bin/gpudoctor
EVIL=$(printf '\033]0;pwned\007\033[31m\302\23332m\342\200\256\n[ok] Everything is fine')
run() {  # NAME ARGS...: stdout in NAME.txt, stderr in NAME.err, exit code in NAME.exit
  local name=$1; shift
  timeout 120 "$@" >$R/$name.txt 2>$R/$name.err; echo $? >$R/$name.exit
}
run healthy-text $GD --color never
run healthy-verbose $GD --color never -v
run healthy-color $GD --color always
timeout 120 $GD --json --no-capture >$R/healthy.json 2>/dev/null
run healthy-fleet $GD fleet $R/healthy.json
run healthy-diff $GD diff $R/healthy.json $R/healthy.json
run hostile-env env CUDA_VISIBLE_DEVICES="0$EVIL" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/nonexistent$EVIL" $GD --color never
run hostile-env-verbose env CUDA_VISIBLE_DEVICES="0$EVIL" LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/nonexistent$EVIL" $GD --color never -v

# What the sanitizer escaped in each output (healthy: expected none but the rules' own `tr ':' '\n'`),
# and any byte a terminal would obey (none but gpudoctor's own colours in healthy-color).
python3 - $R <<'PY' >$R/summary.txt
import os, re, sys
folder = sys.argv[1]
for name in sorted(os.listdir(folder)):
    if not name.endswith(".txt") or name == "summary.txt":
        continue
    data = open(os.path.join(folder, name), "rb").read()
    plain = re.sub(rb"\x1b\[(0|1|2|31|32|33|34)m", b"", data)
    controls = sorted({b for b in plain if (b < 0x20 and b != 0x0a) or b == 0x7f})
    text = data.decode("utf-8", "replace")
    escaped = [m for m in re.findall(r"\\x[0-9a-f]{2}|\\[nrt]|U\+[0-9A-F]{4}", text)]
    bidi_c1 = sorted({"U+%04X" % ord(c) for c in text if 0x80 <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e
                      or 0x2066 <= ord(c) <= 0x2069 or ord(c) in (0x200e, 0x200f)})
    forged = [l for l in text.split("\n") if l.startswith("[ok] Everything")]
    print("%-24s escaped %-4d %s control bytes %s, C1/bidi %s, forged lines %d" % (
        name, len(escaped), sorted(set(escaped))[:8], ["0x%02x" % b for b in controls], bidi_c1, len(forged)))
PY
cat $R/summary.txt
