#!/usr/bin/env python3
"""make_corpus.py --out DIR --inputs GENERATED: writes the seed corpora of the fuzz targets
(DIR/<target>/) from the test fixtures: files the captured hosts hold, tests/fixtures/, rules/ and
the ML host cases. The captured hosts and the ML host cases are read from GENERATED, the folder
the ctest fixture test.inputs fills (tests/hosts/make_test_inputs.sh: every capture, committed or
composed, and the generated ML host cases). The corpora are made, not kept: ctest's fixture fuzz.corpus writes them into the
build tree before the fuzz.* tests run (tests/fuzz/CMakeLists.txt), so they follow the fixtures
without a step run by hand. The same fixtures give the same seeds. Seeds are capped at 64 KiB each."""
import argparse
import base64
import glob
import hashlib
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = None  # set by main() from --out
CAP = 64 * 1024

# target -> path patterns of captured files (substring match) that are its input
FROM_CAPTURES = {
    "nvidia_proc": ["/proc/driver/nvidia/version", "/information", "/proc/driver/nvidia/params", "/proc/devices",
                    "/proc/modules"],
    "ld_cache": ["/etc/ld.so.cache", "/etc/ld.so.conf"],
    "system_files": ["/etc/os-release", "/proc/self/cgroup", "/proc/self/mountinfo", "/proc/1/cgroup", "modprobe.d/",
                     "/usr/bin/ldd", "version.json", "host_config.h", "SecureBoot"],
    "kernel_log": ["/dev/kmsg", "/var/log/kern.log"],
    "python": ["/METADATA", "/version.py", "pyvenv.cfg", "direct_url.json"],
    "elf": [".ko"],
    "fatbin": [],
    # --redact: the kernel log (serial numbers, UUIDs), GPU information (UUIDs), a binary cache.
    "redact": ["/dev/kmsg", "/information", "/etc/ld.so.cache"],
}


# rooted_walk has no fixture to start from: trees written by hand (fuzz_rooted_walk.cpp reads lines
# "KIND PATH[\tTARGET]": d folder, f file, l link, q query; "@" is the folder holding the root).
# Streams for `gpudoctor fleet -`: reports (small, hand-made: the real ones are made by a replay,
# not kept), JSON Lines, indented reports one after another, and what is none.
_REPORT = (b'{"schema_version": 1, "run": {"host": "gpu1", "started": "2026-12-01T10:22:33.123Z", "scope": "all"},'
           b' "facts": {"kmod.nvidia.version": {"state": "present", "type": "string", "value": "580.95.05"},'
           b' "cuda.device.0.name": {"state": "present", "value": "NVIDIA H100 80GB HBM3"},'
           b' "wheels.nvidia": {"state": "present", "value": ["nvidia-nccl-cu12 2.21.5", "x\\u00e9\\ud83d\\ude00"]},'
           b' "nvlink.count": {"state": "unknown", "reason": "no"}, "gpu.count": {"state": "present", "value": 8}},'
           b' "findings": [{"id": "driver.userspace-version-mismatch", "severity": "error", "scope": "node",'
           b' "action": "reboot", "title": "a \\"title\\"", "fix": ["reboot", "then"]}]}')
FLEET_REPORT_SEEDS = [
    _REPORT,
    _REPORT + b"\n" + _REPORT.replace(b"gpu1", b"gpu2") + b"\n",
    b"\xef\xbb\xbf" + _REPORT.replace(b", ", b",\n  ") + b"\n" + _REPORT.replace(b", ", b",\n  "),
    b"not a report\n" + _REPORT + b"\n\x1f\x8b\x08binary\n" + _REPORT[:200] + b"\n" + _REPORT,
    b'{"format": "gpudoctor-capture", "version": 1, "paths": {}}',
    b'{"schema_version": 1, "findings": [{"id": 5}, "x", [1]], "run": []} [1e400, -0, 1.5e-3, "\\udc00"]',
]

ROOTED_WALK_SEEDS = [
    # escapes
    b'd etc\nf etc/os-release\nl etc/up\t../../../../@/OUTSIDE_DIR/OUTSIDE_FILE\nl etc/abs\t@/OUTSIDE_DIR/OUTSIDE_FILE\nq /etc/up\nq /etc/abs\nq /../../OUTSIDE_DIR/OUTSIDE_FILE\nq /etc/../../..\n',
    # links
    b'd usr/lib/x\nf usr/lib/x/libfoo.so\nl lib\tusr/lib\nl usr/lib/x/parent\t..\nl usr/lib/x/libfoo.so.1\tlibfoo.so\nq /lib/x/libfoo.so.1\nq /lib/x/parent/x/libfoo.so\nq /lib\nq /lib/\nq /lib/x/.\n',
    # loops
    b'l loop/a\tb\nl loop/b\t/loop/a\nl loop/self\t./self\nl dangling\t/nowhere\nf file\nq /loop/a\nq /loop/a/below\nq /loop/self\nq /dangling\nq /file/x\nq /file/..\nq /\n',
    # outside_links
    b'l up\t..\nl out\t@\nl outdir\t@/OUTSIDE_DIR\nq /up/up/up/OUTSIDE_DIR\nq /out/OUTSIDE_DIR/OUTSIDE_FILE\nq /outdir\nq /outdir/OUTSIDE_FILE\nq @/OUTSIDE_DIR/OUTSIDE_FILE\n',
]


def content(entry):
    read = entry.get("read") if isinstance(entry, dict) else None
    if not isinstance(read, dict):
        return None
    if "lines" in read:
        return "\n".join(read["lines"]).encode()
    if "base64" in read:
        return base64.b64decode(read["base64"])
    return None


def write(target, data, origin):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    data = data[:CAP]
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    global OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write <target>/ seed folders into (emptied first)")
    parser.add_argument("--inputs", required=True, help="the test inputs made by tests/hosts/make_test_inputs.sh")
    args = parser.parse_args()
    OUT = os.path.abspath(args.out)
    inputs = os.path.abspath(args.inputs)
    captures = sorted(glob.glob(os.path.join(inputs, "tests/hosts/*.capture.json")))
    if not captures:
        raise SystemExit("make_corpus.py: no captures in %s/tests/hosts (made by the ctest fixture test.inputs)" % inputs)
    shutil.rmtree(OUT, ignore_errors=True)
    for path in captures:
        capture = json.load(open(path))
        for file_path, entry in capture.get("paths", {}).items():
            data = content(entry)
            if data is None:
                continue
            for target, patterns in FROM_CAPTURES.items():
                if any(p in file_path for p in patterns):
                    write(target, data, file_path)
        # The helper's replies, and each capture (cut down) for replay.
        for run in capture.get("helper_runs", []):
            reply = run.get("reply", {})
            if "lines" in reply:
                write("helper_reply", "\n".join(reply["lines"]).encode(), path)
        if os.path.getsize(path) <= 256 * 1024:
            write("replay", open(path, "rb").read(), path)
            write("fleet_report", open(path, "rb").read(), path)  # a capture (no report), cut at CAP
    for path in glob.glob(os.path.join(ROOT, "tests/fixtures/python/*")):
        if path.endswith((".md", ".py", ".tsv")):
            continue
        target = "requirements" if "requires-dist" in path else "python"
        write(target, open(path, "rb").read(), path)
    tsv = os.path.join(ROOT, "tests/fixtures/python/packaging-oracle.tsv")
    lines = [l for l in open(tsv, encoding="utf-8").read().splitlines() if l.startswith(("requirement", "marker", "specifier"))]
    for line in lines[:200:4]:
        write("requirements", line.split("\t", 2)[-1].encode(), tsv)
    for path in glob.glob(os.path.join(ROOT, "tests/fixtures/cuda-toolkit/*")):
        if not path.endswith(".md"):
            write("system_files", open(path, "rb").read(), path)
    for path in glob.glob(os.path.join(ROOT, "tests/fixtures/elf/*")) + glob.glob(os.path.join(ROOT, "tests/fixtures/ld.so.cache/*")):
        target = "ld_cache" if "ld.so.cache" in path else "elf"
        if os.path.isfile(path) and not path.endswith(".md"):
            write(target, open(path, "rb").read(), path)
    for path in sorted(glob.glob(os.path.join(ROOT, "rules/*/*.toml")))[::6]:
        write("rules", open(path, "rb").read(), path)
    # Fat binaries: the stand-in libtorch of the ML scenarios and the flash-attn one.
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/rules/ml.*/hosts/*.host.json")) +
                       glob.glob(os.path.join(inputs, "tests/rules/ml.*/hosts/*.host.json"))):
        host = json.load(open(path))
        for file_path, entry in host.get("paths", {}).items():
            if file_path.endswith(".so"):
                data = content(entry)
                if data:
                    write("fatbin", data, path)
                    write("elf", data, path)
    for seed in ROOTED_WALK_SEEDS:
        write("rooted_walk", seed, "make_corpus.py")
    for seed in FLEET_REPORT_SEEDS:
        write("fleet_report", seed, "make_corpus.py")
    for target in ["nvidia_proc", "ld_cache", "elf", "fatbin", "python", "requirements", "system_files", "kernel_log",
                   "helper_reply", "rules", "replay", "redact", "rooted_walk", "fleet_report"]:
        folder = os.path.join(OUT, target)
        os.makedirs(folder, exist_ok=True)
        print(target, len(os.listdir(folder)))


main()
