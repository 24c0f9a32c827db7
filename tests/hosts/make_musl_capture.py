#!/usr/bin/env python3
"""Builds tests/hosts/musl-only-no-loader.capture.json: an Alpine Linux 3.22 container (musl only,
no glibc loader anywhere) given the real H200 of h200-live-full.capture.json, the situation of
rules/cuda/no-glibc-loader.toml (NVIDIA/nvidia-docker#509).

The capture is what gpudoctor itself records when it runs, live (not --root), chrooted into a real
tree:
  - the Alpine user space: musl's dynamic loader /lib/ld-musl-x86_64.so.1 (Debian's musl 1.2.3
    package: the same upstream release as Alpine 3.17's; a real, working libc) with Alpine's
    libc.musl-x86_64.so.1 link to it, BusyBox as /bin/busybox with /bin/sh and /usr/bin/env linked
    to it (Debian's busybox-static 1.35.0), and Alpine 3.22.1's /usr/lib/os-release (linked from
    /etc), /etc/alpine-release and musl-utils' /usr/bin/ldd;
  - what the host and the NVIDIA runtime put into the container, taken from the real H200 capture
    (h200-live-full): /proc, /sys and /dev as that container showed them (files with their text,
    device nodes with their numbers and modes, names listed without an entry as empty
    placeholders), /.dockerenv, and the driver volume /usr/local/nvidia (symbolic links as they
    were, each library a sparse file of its real size holding the bytes gpudoctor read of it).
The environment is an Alpine image's (PATH) plus the two variables the GPU runtime set on the H200
(NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES); the image sets no CUDA variable and no
LD_LIBRARY_PATH. So gpudoctor's own search finds no glibc loader (the helper's status is
"no-loader"), and every other probe reads a real file.

Three things a chroot on this machine cannot show are then set from the H200 capture, as
make_kmod_scenarios.py does for its scenarios: uname (the run's is this machine's kernel, also
renamed in the paths named after it), the
open() results of the NVIDIA device nodes (this machine has no driver behind 195/238/241), and
/dev/kmsg (a chroot cannot read another machine's kernel log; the H200 container could).

Hermetic: the output depends only on the gpudoctor binary, the repository and the two Debian
packages, pinned by sha256 below and kept in the toolchain cache
($GPUDOCTOR_TOOLCHAIN_CACHE or ~/.cache/gpudoctor-toolchain, debs/); run by hand it fetches them
with apt-get download when missing. tests/e2e/test_generators.sh checks that a rerun rewrites the
capture unchanged.

  python3 tests/hosts/make_musl_capture.py <build>/gpudoctor [--out DIR] [--no-download]
  python3 tests/hosts/make_musl_capture.py --fetch-only   (toolchain/install.sh: the packages only)

Needs root (mknod, chroot). Exits 125 with the reason when it cannot run here (not root, the
packages missing with --no-download).
"""
import base64
import hashlib
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_NAME = "h200-live-full"
OUT_NAME = "musl-only-no-loader.capture.json"

# Debian 12 (bookworm) amd64 packages: file name -> (apt-get download argument, sha256).
DEBS = {
    "musl_1.2.3-1_amd64.deb": ("musl=1.2.3-1", "4fc1e3d9b579f5c682ca99a4d45aec08d72a2e6b82b4c2e1bbcb7095466ae96d"),
    "busybox-static_1%3a1.35.0-4+deb12u1+b1_amd64.deb": (
        "busybox-static=1:1.35.0-4+deb12u1+b1", "3d3fdbe91d4660c873e14b092c213fe81c1da6362daa236eb25d0171eb108744"),
}

# What of the H200 container the host and the NVIDIA runtime provide (everything else is the image's).
FROM_HOST = ("/proc", "/sys", "/dev", "/usr/local/nvidia", "/.dockerenv", "/run/systemd/container")

# Alpine 3.22.1 (alpine-base, musl-utils).
OS_RELEASE = ('NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.22.1\nPRETTY_NAME="Alpine Linux v3.22"\n'
              'HOME_URL="https://alpinelinux.org/"\nBUG_REPORT_URL="https://gitlab.alpinelinux.org/alpine/aports/-/issues"\n')
LDD = '#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list -- "$@"\n'
PASSWD = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n"
# docker run alpine: the image's PATH; the H200 runtime's GPU variables.
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
       "NVIDIA_VISIBLE_DEVICES": "0", "NVIDIA_DRIVER_CAPABILITIES": "compute,graphics,utility"}


def cannot_run(reason):
    print("make_musl_capture.py: cannot run here: " + reason, file=sys.stderr)
    sys.exit(125)


def debs_dir():
    cache = os.environ.get("GPUDOCTOR_TOOLCHAIN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "gpudoctor-toolchain")
    return os.path.join(cache, "debs")


def deb_members(path, wanted):
    """The files WANTED (paths as in the package, "./lib/...") from a .deb: an ar archive whose
    data.tar.xz holds the files."""
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"!<arch>\n"), path
    at, tar_bytes = 8, None
    while at < len(data):
        name = data[at:at + 16].decode().strip().rstrip("/")
        size = int(data[at + 48:at + 58].decode().strip())
        body = data[at + 60:at + 60 + size]
        if name == "data.tar.xz":
            tar_bytes = lzma.decompress(body)
        at += 60 + size + (size & 1)
    assert tar_bytes is not None, path + ": no data.tar.xz"
    out = {}
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        for member in tar.getmembers():
            if member.name in wanted and member.isfile():
                out[member.name] = tar.extractfile(member).read()
    missing = set(wanted) - set(out)
    assert not missing, (path, missing)
    return out


def packages(download):
    folder = debs_dir()
    files = {}
    for name, (spec, sha256) in DEBS.items():
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            if not download:
                cannot_run("no %s (toolchain/install.sh fetches it; so does this script without --no-download)" % path)
            os.makedirs(folder, exist_ok=True)
            subprocess.run(["apt-get", "download", spec], cwd=folder, check=True)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if digest != sha256:
            sys.exit("%s: sha256 %s, expected %s" % (path, digest, sha256))
        files[name] = path
    musl = deb_members(files["musl_1.2.3-1_amd64.deb"], ["./lib/x86_64-linux-musl/libc.so"])
    busybox = deb_members(files["busybox-static_1%3a1.35.0-4+deb12u1+b1_amd64.deb"], ["./bin/busybox"])
    return musl["./lib/x86_64-linux-musl/libc.so"], busybox["./bin/busybox"]


def put(root, path, content, mode):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(content.encode() if isinstance(content, str) else content)
    os.chmod(full, mode)


def link(root, path, target):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.symlink(target, full)


def text_of(read):
    if "lines" in read:
        return "\n".join(read["lines"]).encode()
    return base64.b64decode(read["base64"])


def from_host(path):
    return any(path == p or path.startswith(p + "/") for p in FROM_HOST)


def host_part(root, base):
    """The H200 container's /proc, /sys, /dev, /.dockerenv and driver volume, as it showed them."""
    paths = {p: e for p, e in base["paths"].items() if from_host(p)}
    for path, entry in sorted(paths.items()):
        full = root + path
        stat = entry.get("lstat") if isinstance(entry.get("lstat"), dict) else entry.get("stat")
        stat = stat if isinstance(stat, dict) and "type" in stat else None
        if isinstance(entry.get("link"), str):
            link(root, path, entry["link"])
        elif stat and stat["type"] == "char":
            os.makedirs(os.path.dirname(full), exist_ok=True)
            os.mknod(full, 0o20000 | int(stat["mode"], 8), os.makedev(stat["major"], stat["minor"]))
            os.chmod(full, int(stat["mode"], 8))
        elif stat and stat["type"] == "dir" or isinstance(entry.get("list"), list):
            os.makedirs(full, exist_ok=True)
            if stat:
                os.chmod(full, int(stat["mode"], 8))
        elif isinstance(entry.get("read"), dict) and "error" not in entry["read"]:
            put(root, path, text_of(entry["read"]), int(stat["mode"], 8) if stat else 0o644)
        elif stat and stat["type"] == "file":
            # A file gpudoctor read only a part of (an ELF header): its real size, those bytes.
            put(root, path, b"", int(stat["mode"], 8))
            with open(full, "r+b") as f:
                f.truncate(stat["size"])
                for part in entry.get("ranges", []):
                    if "error" not in part:
                        f.seek(part["offset"])
                        f.write(text_of(part))
    # Names a listing showed that have no entry of their own: empty placeholders.
    for path, entry in sorted(paths.items()):
        if isinstance(entry.get("list"), list):
            for name in entry["list"]:
                full = os.path.join(root + path, name)
                if not os.path.lexists(full):
                    put(root, path + "/" + name, b"", 0o644)


def alpine_part(root, musl, busybox):
    put(root, "/lib/ld-musl-x86_64.so.1", musl, 0o755)
    link(root, "/lib/libc.musl-x86_64.so.1", "ld-musl-x86_64.so.1")
    put(root, "/bin/busybox", busybox, 0o755)
    for applet in ("/bin/sh", "/bin/ls", "/bin/cat", "/usr/bin/env"):
        link(root, applet, "/bin/busybox")
    put(root, "/usr/lib/os-release", OS_RELEASE, 0o644)
    link(root, "/etc/os-release", "../usr/lib/os-release")
    put(root, "/etc/alpine-release", "3.22.1\n", 0o644)
    put(root, "/usr/bin/ldd", LDD, 0o755)
    put(root, "/etc/passwd", PASSWD, 0o644)
    for folder, mode in (("/root", 0o700), ("/tmp", 0o1777), ("/home", 0o755), ("/usr/local/bin", 0o755),
                         ("/var", 0o755)):
        os.makedirs(root + folder, exist_ok=True)
        os.chmod(root + folder, mode)


def capture_of(gpudoctor, musl, busybox, base):
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        os.makedirs(root)
        os.chmod(root, 0o755)
        host_part(root, base)
        alpine_part(root, musl, busybox)
        shutil.copy(gpudoctor, root + "/tmp/gpudoctor")
        out = subprocess.run(["chroot", root, "/tmp/gpudoctor", "--json"], capture_output=True, text=True,
                             env=ENV, cwd="/")
        if out.returncode not in (0, 1):
            sys.exit("gpudoctor in the chroot: exit %d: %s" % (out.returncode, out.stderr))
        capture = json.loads(out.stdout)["capture"]
    assert capture["root"] == "/", capture["root"]
    # Paths named after the running kernel (/lib/modules/<release>, firmware folders): the H200's.
    live_release = os.uname().release
    capture["paths"] = {p.replace(live_release, base["uname"]["release"]): e for p, e in capture["paths"].items()}
    capture["uname"] = dict(base["uname"])
    for path, entry in capture["paths"].items():
        if path.startswith("/dev/nvidia") and "open" in entry:
            entry["open"] = base["paths"][path]["open"]
    capture["paths"]["/dev/kmsg"] = base["paths"]["/dev/kmsg"]
    capture["paths"] = dict(sorted(capture["paths"].items()))
    capture["created_by"] = ("tests/hosts/make_musl_capture.py: gpudoctor run in a chroot of an Alpine 3.22 "
                             "tree (Debian's musl 1.2.3 and busybox-static) with the H200 of " + BASE_NAME)
    return capture


def main():
    args = sys.argv[1:]
    if args == ["--fetch-only"]:  # toolchain/install.sh: fetch and verify the packages, nothing else
        packages(download=True)
        return
    download = "--no-download" not in args
    args = [a for a in args if a != "--no-download"]
    out = HERE
    if len(args) == 3 and args[1] == "--out":
        out = os.path.join(args[2], "tests", "hosts")
    elif len(args) != 1:
        sys.exit(__doc__)
    if os.geteuid() != 0:
        cannot_run("needs root (mknod, chroot)")
    if shutil.which("chroot") is None:
        cannot_run("no chroot")
    os.umask(0o022)
    musl, busybox = packages(download)
    with open(os.path.join(HERE, BASE_NAME + ".capture.json"), encoding="utf-8") as f:
        base = json.load(f)
    capture = capture_of(os.path.abspath(args[0]), musl, busybox, base)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, OUT_NAME), "w", encoding="utf-8") as f:
        json.dump(capture, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", OUT_NAME)


if __name__ == "__main__":
    main()
