#!/usr/bin/env python3
"""Writes THIRD-PARTY-NOTICES: what the gpudoctor binary holds that is not gpudoctor's own code,
with each part's license text, taken from the copies the build itself uses (zig's lib tree for
musl, LLVM's libc++/libc++abi/libunwind, zig's compiler_rt and glibc's start files; Debian's
copyright files for the header-only libraries, whose headers toolchain/install.sh copies).

usage: third_party_notices.py TOOLCHAIN_DIR [DOC_DIR]   (prints the file)
  TOOLCHAIN_DIR: `bash toolchain/install.sh --print-dir`; DOC_DIR: /usr/share/doc (default)

tests/e2e/test_third_party_notices.sh checks that the checked-in THIRD-PARTY-NOTICES is what this
prints, and that its "Linked into" and "Compiled into" lines cover what the link commands and the
compiled headers of the build really pull in. After a toolchain change, run
  python3 toolchain/third_party_notices.py "$(bash toolchain/install.sh --print-dir)" >THIRD-PARTY-NOTICES
and review the difference. Only the standard library is used (any python3 runs it).
"""
import os
import re
import subprocess
import sys

RULE = "=" * 80
THIN = "-" * 80


def die(message):
    sys.exit(f"third_party_notices: error: {message}")


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        die(f"{path}: {e.strerror}")


def define(path, name):
    m = re.search(r"^#\s*define\s+" + re.escape(name) + r"\s+\"?([0-9.]+)\"?", read(path), re.M)
    if not m:
        die(f"{path} defines no {name}")
    return m.group(1)


def debian_license(doc_dir, package):
    """The `Files: *` copyright holders and the text of its license, from a Debian copyright
    file (machine-readable format 1.0: continuation lines start with a space, "." is an empty
    line)."""
    path = os.path.join(doc_dir, package, "copyright")
    paragraphs = re.split(r"\n\s*\n", read(path))
    fields = []
    for p in paragraphs:
        entry, key = {}, None
        for line in p.splitlines():
            if line.startswith((" ", "\t")) and key:
                entry[key].append(line[1:])
            elif ":" in line:
                key, value = line.split(":", 1)
                entry[key] = [value.strip()] if value.strip() else []
        fields.append(entry)
    main = next((f for f in fields if f.get("Files", [""])[0].strip() == "*"), None)
    if not main:
        die(f"{path} has no 'Files: *' paragraph")
    name = main["License"][0]
    text = next((f["License"][1:] for f in fields if "Files" not in f and f.get("License", [""])[0] == name), None)
    if not text:
        die(f"{path} has no text for the license '{name}'")
    # The holders of every file that ends up compiled in: `Files: *` and those of include/
    # (nlohmann-json's to_chars.hpp and serializer.hpp, toml++'s unicode.h).
    holders = []
    for f in fields:
        files = " ".join(f.get("Files", []))
        if files.strip() == "*" or (files.startswith("include/") and f.get("License", [""])[0] == name):
            holders += [line.strip() for line in f["Copyright"] if line.strip() not in holders]
    body = "\n".join("" if line.strip() == "." else line.rstrip() for line in text)
    return holders, name, body.strip("\n") + "\n"


def glibc_exception(zig_lib):
    """The linking exception of the GNU C Library's start files, from a file of zig's glibc copy
    (the same words head every such file)."""
    path = os.path.join(zig_lib, "libc", "glibc", "csu", "abi-note.S")
    text = read(path)
    start = text.find("The GNU C Library is free software")
    end = text.find("*/", start)
    if start < 0 or end < 0 or "unlimited" not in text[start:end]:
        die(f"{path} does not hold the licence and its linking exception")
    lines = [line.strip() for line in text[start:end].splitlines()]
    return "\n".join(lines).strip() + "\n"


def component(number, title, license_name, where, source, text):
    out = [RULE, f"{number}. {title}", f"   License: {license_name}"]
    out += [f"   {line}" for line in where]
    out += [f"   Text from: {source}", THIN, text.rstrip("\n"), ""]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        die("usage: third_party_notices.py TOOLCHAIN_DIR [DOC_DIR]")
    toolchain = sys.argv[1]
    doc_dir = sys.argv[2] if len(sys.argv) == 3 else "/usr/share/doc"
    zig = os.path.join(toolchain, "zig")
    lib = os.path.join(toolchain, "lib")
    include = os.path.join(toolchain, "include")
    try:
        zig_version = subprocess.run([zig, "version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        die(f"{zig} version: {e}")

    musl_version = define(os.path.join(lib, "libc", "musl", "src", "internal", "version.h"), "VERSION")
    libcxx = int(define(os.path.join(lib, "libcxx", "include", "__config"), "_LIBCPP_VERSION"))
    llvm_version = f"{libcxx // 10000}.{libcxx // 100 % 100}.{libcxx % 100}"
    llvm_texts = {name: read(os.path.join(lib, name, "LICENSE.TXT")) for name in ("libcxx", "libcxxabi", "libunwind")}
    # The three files differ only in the library they name; one copy is printed.
    for name, library in (("libcxxabi", "libc++abi"), ("libunwind", "libunwind")):
        if llvm_texts[name].replace(f"The {library} library", "The libc++ library") != llvm_texts["libcxx"]:
            die(f"{lib}/{name}/LICENSE.TXT differs from libcxx's by more than the library's name: print it too")
    fmt = int(define(os.path.join(include, "fmt", "core.h"), "FMT_VERSION"))
    abi = os.path.join(include, "nlohmann", "detail", "abi_macros.hpp")
    versions = {
        "CLI11": define(os.path.join(include, "CLI", "Version.hpp"), "CLI11_VERSION"),
        "fmt": f"{fmt // 10000}.{fmt // 100 % 100}.{fmt % 100}",
        "nlohmann-json": ".".join(define(abi, f"NLOHMANN_JSON_VERSION_{p}") for p in ("MAJOR", "MINOR", "PATCH")),
        "toml++": ".".join(define(os.path.join(include, "toml++", "impl", "version.h"), f"TOML_LIB_{p}")
                           for p in ("MAJOR", "MINOR", "PATCH")),
    }

    parts = []
    parts.append(component(
        1, f"musl libc {musl_version}", "MIT",
        ["Linked into gpudoctor: libc.a crt1.o crti.o crtn.o",
         "Compiled into gpudoctor from headers in: lib/libc/include/generic-musl/ "
         "lib/libc/include/x86_64-linux-musl/ lib/libc/include/aarch64-linux-musl/"],
        f"zig {zig_version}'s copy of musl, lib/libc/musl/COPYRIGHT",
        read(os.path.join(lib, "libc", "musl", "COPYRIGHT"))))
    parts.append(component(
        2, f"LLVM libc++, libc++abi and libunwind {llvm_version}", "Apache-2.0 WITH LLVM-exception (NCSA for older parts)",
        ["Linked into gpudoctor: libc++.a libc++abi.a libunwind.a",
         "Compiled into gpudoctor from headers in: lib/libcxx/ lib/include/",
         "Compiled into the CUDA helper from headers in: lib/include/",
         "(lib/include/ holds clang's own headers, stddef.h and the like: LLVM's too, under the same license)"],
        f"zig {zig_version}'s copies, lib/libcxx/LICENSE.TXT (lib/libcxxabi/LICENSE.TXT and "
        "lib/libunwind/LICENSE.TXT are the same text, naming their own library)",
        llvm_texts["libcxx"]))
    parts.append(component(
        3, f"zig {zig_version} compiler_rt (the compiler's runtime functions)", "MIT",
        ["Linked into gpudoctor: libcompiler_rt.a", "Linked into the CUDA helper: libcompiler_rt.a"],
        f"zig {zig_version}'s LICENSE", read(os.path.join(toolchain, "LICENSE"))))
    parts.append(component(
        4, "GNU C Library: program start files and libc_nonshared.a",
        "LGPL-2.1-or-later with the GNU C Library's linking exception",
        ["Linked into the CUDA helper: Scrt1.o crti.o crtn.o libc_nonshared.a",
         "Compiled into the CUDA helper from headers in: lib/libc/include/generic-glibc/ "
         "lib/libc/include/x86_64-linux-gnu/ lib/libc/include/aarch64-linux-gnu/",
         "(the helper runs on the host's own glibc, linked dynamically: no other glibc code is shipped;",
         "the full LGPL-2.1 is at https://www.gnu.org/licenses/old-licenses/lgpl-2.1.html)"],
        f"zig {zig_version}'s copy of glibc, the notice that heads its files (lib/libc/glibc/csu/abi-note.S)",
        glibc_exception(lib)))
    headers = [("CLI11", "libcli11-dev", "CLI/"), ("{fmt}", "libfmt-dev", "fmt/"),
               ("JSON for Modern C++ (nlohmann-json)", "nlohmann-json3-dev", "nlohmann/"),
               ("toml++", "libtomlplusplus-dev", "toml++/")]
    for n, (title, package, folder) in enumerate(headers, start=5):
        key = {"{fmt}": "fmt", "JSON for Modern C++ (nlohmann-json)": "nlohmann-json"}.get(title, title)
        holders, license_name, text = debian_license(doc_dir, package)
        body = "".join(f"Copyright {h}\n" for h in holders) + "\n" + text
        parts.append(component(
            n, f"{title} {versions[key]}", license_name,
            [f"Compiled into gpudoctor from headers in: include/{folder}"],
            f"Debian's {package} (/usr/share/doc/{package}/copyright), whose headers the build uses", body))

    uapi = os.path.join(lib, "libc", "include", "any-linux-any", "linux", "limits.h")
    spdx = re.search(r"SPDX-License-Identifier: ([^*]+?)\s*\*/", read(uapi))
    if not spdx:
        die(f"{uapi} has no SPDX-License-Identifier")
    parts.append(component(
        len(parts) + 1, "Linux kernel UAPI headers (constants only)", spdx.group(1),
        ["Compiled into the CUDA helper from headers in: lib/libc/include/any-linux-any/ "
         "lib/libc/include/aarch64-linux-any/"],
        f"the SPDX-License-Identifier line of zig {zig_version}'s copies (lib/libc/include/any-linux-any/)",
        "The helper uses these headers for constants only (errno numbers, limits). The headers carry\n"
        "the Linux-syscall-note, by which programs that use the kernel's services through system calls\n"
        "are not derived works of the kernel; nothing of the kernel's code is in the helper.\n"))

    head = f"""THIRD-PARTY-NOTICES for gpudoctor

gpudoctor itself is licensed under the Apache License 2.0 (LICENSE). The gpudoctor binary is one
static executable; besides gpudoctor's own code it holds the parts listed below, linked statically
or compiled in from header-only libraries. It also carries the CUDA helper, a small program it
runs to load the host's libcuda and NVML (embedded in it as bytes), which holds the parts whose
entries name "the CUDA helper". Nothing else is linked or compiled into either.

tests/e2e/test_third_party_notices.sh checks this list against the link commands of the build
and the headers it compiles, and that this file is what toolchain/third_party_notices.py writes
from the license texts of the copies the build uses.

"""
    contents = "".join(f"  {p.splitlines()[1]}\n" for p in parts)
    sys.stdout.write(head + "Contents\n" + contents + "\n" + "".join(parts))


main()
