"""Checks THIRD-PARTY-NOTICES against what the build really puts into the binaries.

usage: check_third_party_notices.py NOTICES TOOLCHAIN_DIR BUILD_DIR...
  BUILD_DIR: a configured and built gpudoctor build folder (build/, build-aarch64/), Makefile
  generator: its CMakeFiles/<target>.dir/link.txt is the link command CMake runs.

For gpudoctor and for its embedded CUDA helper (BUILD_DIR/helper), in every BUILD_DIR:
  - the link is run again exactly as CMake runs it, with ZIG_VERBOSE_LINK=1, into a temporary
    file: every input of the ld.lld command line that is not the build's own (an object or
    archive under BUILD_DIR) must be named on a "Linked into <binary>:" line; gpudoctor must
    take no shared library, the helper only glibc's (the host's at run time); and the relinked
    file must be byte-identical to the one built (the link depends on nothing but its inputs);
  - every header the build compiled for it (the compiler's .o.d files) from the toolchain must
    lie in a folder named on a "Compiled into <binary> from headers in:" line; any header from
    elsewhere outside the source tree (/usr/include) is an error.
And each name on those lines must be seen in some link or compile (no stale entry), except the
folders of an architecture not built here.
Exit 0 when it holds, 1 with FAIL lines.
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

failures = 0


def fail(message):
    global failures
    failures += 1
    print(f"FAIL: {message}")


notices_path, toolchain, builds = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3:]
notices = open(notices_path, encoding="utf-8").read()
BINARIES = {"gpudoctor": "gpudoctor", "the CUDA helper": "helper"}
linked = {key: set() for key in BINARIES.values()}
headers = {key: set() for key in BINARIES.values()}
for line in notices.splitlines():
    m = re.match(r"^   Linked into (gpudoctor|the CUDA helper): (.+)$", line)
    if m:
        linked[BINARIES[m.group(1)]].update(m.group(2).split())
    m = re.match(r"^   Compiled into (gpudoctor|the CUDA helper) from headers in: (.+)$", line)
    if m:
        headers[BINARIES[m.group(1)]].update(m.group(2).split())
seen_linked = {key: set() for key in BINARIES.values()}
seen_headers = {key: set() for key in BINARIES.values()}
source_dir = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def link_inputs(target_dir, target, output):
    """The ld.lld inputs of CMake's link of `target` in `target_dir`, run again into `output`."""
    link_txt = os.path.join(target_dir, "CMakeFiles", f"{target}.dir", "link.txt")
    if not os.path.exists(link_txt):
        fail(f"{link_txt} is missing (a build made with CMake's Makefile generator is needed)")
        return None
    command = shlex.split(open(link_txt).read())
    if "-o" not in command:
        fail(f"{link_txt}: no -o in the link command")
        return None
    built = os.path.join(target_dir, command[command.index("-o") + 1])
    command[command.index("-o") + 1] = output
    env = dict(os.environ, ZIG_VERBOSE_LINK="1")
    run = subprocess.run(command, cwd=target_dir, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"relinking {target} in {target_dir} failed: {run.stderr[-500:]}")
        return None
    lld = [l for l in run.stderr.splitlines() if re.search(r"(^|/| )ld\.lld ", l)]
    if len(lld) != 1:
        fail(f"relinking {target}: {len(lld)} ld.lld command lines in zig's output")
        return None
    if open(built, "rb").read() != open(output, "rb").read():
        fail(f"{built} differs from the same link run again: the link depends on more than its inputs")
    inputs = []
    for word in shlex.split(lld[0]):
        if re.search(r"\.(a|o|so(\.[0-9]+)*)$", word) and not word.startswith("-"):
            inputs.append(word)
    return inputs


def check_link(build, target_dir, target, key, tmp):
    inputs = link_inputs(target_dir, target, os.path.join(tmp, f"{key}.relinked"))
    if inputs is None:
        return
    own = os.path.realpath(build)
    for path in inputs:
        full = os.path.realpath(os.path.join(target_dir, path))
        name = os.path.basename(path)
        if full.startswith(own + os.sep):
            continue  # the build's own objects and archives
        if re.search(r"\.so(\.[0-9]+)*$", name):
            if key == "gpudoctor":
                fail(f"{build}: gpudoctor links the shared library {path}: it must be static")
            elif not re.match(r"^(libc|libm|libdl|libpthread|librt|libld|libutil|libresolv)\.so", name) \
                    and not name.startswith("ld-linux"):
                fail(f"{build}: the CUDA helper links {path}, not one of glibc's own libraries")
            continue
        seen_linked[key].add(name)
        if name not in linked[key]:
            fail(f"{build}: the link of {'gpudoctor' if key == 'gpudoctor' else 'the CUDA helper'} takes {path}, "
                 f"which THIRD-PARTY-NOTICES does not name")


def check_headers(build, dep_globs, key):
    count = 0
    unnamed = {}  # a header in no named folder -> where it was first seen (each said once)
    for dep in sorted(p for g in dep_globs for p in glob.glob(os.path.join(build, g), recursive=True)):
        words = open(dep, encoding="utf-8", errors="replace").read().replace("\\\n", " ").split()
        for word in words[1:]:
            if word.endswith(":"):
                continue
            path = os.path.realpath(word if os.path.isabs(word) else os.path.join(build, word))
            if path.startswith(source_dir + os.sep) or path.startswith(os.path.realpath(build) + os.sep):
                continue
            count += 1
            if not path.startswith(toolchain + os.sep):
                unnamed.setdefault(path, (dep, "from outside the source tree and the toolchain"))
                continue
            relative = os.path.relpath(path, toolchain)
            folder = next((f for f in headers[key] if relative.startswith(f)), None)
            if folder is None:
                unnamed.setdefault(relative, (dep, "in no folder THIRD-PARTY-NOTICES names"))
            else:
                seen_headers[key].add(folder)
    by_folder = {}
    for header, (dep, why) in sorted(unnamed.items()):
        by_folder.setdefault(os.path.dirname(header), []).append((header, dep, why))
    for folder, items in by_folder.items():
        header, dep, why = items[0]
        fail(f"{dep}: compiles {header}" + (f" and {len(items) - 1} more of {folder}/" if len(items) > 1 else "")
             + f", {why}")
    if count == 0:
        fail(f"{build}: no compiled header found for {key} (no .o.d files?)")


with tempfile.TemporaryDirectory() as tmp:
    built_arches = set()
    for build in builds:
        # The compiler that links gpudoctor names the target: .../x86_64-linux-musl-c++.
        link_txt = os.path.join(build, "CMakeFiles", "gpudoctor.dir", "link.txt")
        first = open(link_txt).read().split()[0] if os.path.exists(link_txt) else ""
        m = re.search(r"/([a-z0-9_]+)-linux-musl-c\+\+$", first)
        if not m:
            fail(f"{build}: not a zig musl build ({link_txt} links with {first!r})")
            continue
        arch = m.group(1)
        built_arches.add(arch)
        check_link(build, build, "gpudoctor", "gpudoctor", tmp)
        check_link(build, os.path.join(build, "helper"), "gpudoctor-cuda-helper", "helper", tmp)
        check_headers(build, ["CMakeFiles/gpudoctor.dir/**/*.o.d", "CMakeFiles/gpudoctor_core.dir/**/*.o.d",
                              "CMakeFiles/gpudoctor_embedded.dir/**/*.o.d"], "gpudoctor")
        check_headers(build, ["helper/CMakeFiles/gpudoctor-cuda-helper.dir/**/*.o.d"], "helper")
    arch_names = {"x86_64", "aarch64"}
    for key in BINARIES.values():
        for name in sorted(linked[key] - seen_linked[key]):
            fail(f"THIRD-PARTY-NOTICES names {name} as linked into {key}, but no link here takes it")
        for folder in sorted(headers[key] - seen_headers[key]):
            other_arch = any(a in folder and a not in built_arches for a in arch_names)
            if not other_arch:
                fail(f"THIRD-PARTY-NOTICES names {folder} as compiled into {key}, but nothing here includes from it")
    print(f"builds {', '.join(builds)} ({', '.join(sorted(built_arches))}): linked "
          + "; ".join(f"{k}: {' '.join(sorted(v))}" for k, v in seen_linked.items())
          + " | headers " + "; ".join(f"{k}: {' '.join(sorted(v))}" for k, v in seen_headers.items()))
sys.exit(1 if failures else 0)
