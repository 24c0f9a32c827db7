#!/usr/bin/env python3
"""Builds two whole-host scenario captures for the kernel-module and firmware layers:

  blackwell-firmware-missing.capture.json  an RTX 5090 (10de:2b85, GB202) on the open module
      580.65.06 while /lib/firmware/nvidia/ holds only the previous driver's 570.124.06 folder
      (the firmware package was not upgraded with the module); the kernel log shows the failed
      firmware load and RmInitAdapter 0x61, as in NVIDIA/open-gpu-kernel-modules#639.
  upgrade-without-reboot.capture.json  the open module 570.124.06 still loaded after an upgrade
      installed 580.65.06 (module for this kernel, firmware, libcuda and libnvidia-ml).

They are synthetic hosts: the file formats are the real ones (nv-procfs.c for /proc/driver/nvidia,
kernel/module/procfs.c for /proc/modules, sysfs PCI attributes, a kernel-module ELF with .modinfo,
the ld.so.cache that glibc's ldconfig writes for these two libraries), the values those of the
situations above. The tree is built in a temporary folder and read by gpudoctor itself
(`--root DIR --json`), so the capture holds exactly what every probe read; the kernel release of
the machine that ran it is then renamed to the scenario's.

Hermetic: the output depends on the gpudoctor binary and the repository only. gpudoctor runs with
a fixed environment (a root shell's PATH, nothing else) from /; the driver libraries are the tiny
ELF fixtures of tests/fixtures/elf/ (no compiler); the ld.so.cache is written here, byte for byte
what Debian 12's ldconfig (glibc 2.36, the machine that made the first captures) writes for them
(no ldconfig); the module parameters come from the committed H200 container capture. So the
captures are current exactly when a rerun rewrites them unchanged, which
tests/e2e/test_generators.sh checks (the probes read something new: rerun this script, and check
the rule host cases built on these captures, build/tests/gpudoctor_tests '[hosts]').

Run when the scenarios or the probes change: python3 tests/hosts/make_kmod_scenarios.py <build>/gpudoctor
[--out DIR] (needs root for mknod; --out DIR writes DIR/tests/hosts/... instead of the repository).
"""
import json
import os
import platform
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RELEASE = "6.8.0-49-generic"
LIVE_RELEASE = platform.release()
# What gpudoctor sees of the environment: a root shell's PATH on Ubuntu, nothing of the caller's.
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}


def module_elf(modinfo, signed=True):
    """A relocatable x86-64 ELF with .text, .modinfo and .shstrtab, like a (tiny) nvidia.ko."""
    names = b"\0.text\0.modinfo\0.shstrtab\0"
    info = b"".join(entry.encode() + b"\0" for entry in modinfo)
    text = b"\x90" * 16
    body = bytearray(64)
    text_at = len(body); body += text
    info_at = len(body); body += info
    names_at = len(body); body += names
    while len(body) % 8:
        body += b"\0"
    table_at = len(body)
    sections = [(0, 0, 0, 0), (1, 1, text_at, len(text)), (7, 1, info_at, len(info)), (16, 3, names_at, len(names))]
    for name, kind, offset, size in sections:
        body += struct.pack("<IIQQQQIIQQ", name, kind, 0, 0, offset, size, 0, 0, 1, 0)
    struct.pack_into("<4sBBBBB7xHHIQQQIHHHHHH", body, 0, b"\x7fELF", 2, 1, 1, 0, 0, 1, 62, 1, 0, 0, table_at, 0,
                     64, 0, 0, 64, len(sections), len(sections) - 1)
    if signed:
        body += b"\x30" * 40 + b"~Module signature appended~\n"
    return bytes(body)


def write(root, path, content, mode=0o644):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(content.encode() if isinstance(content, str) else content)
    os.chmod(full, mode)


def link(root, path, target):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.symlink(target, full)


def chardev(root, path, major, minor):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.mknod(full, 0o20666, os.makedev(major, minor))
    os.chmod(full, 0o666)


def shared_library(root, path, fixture):
    """A real ELF shared object with the driver's soname: tests/fixtures/elf/FIXTURE (its README)."""
    with open(os.path.join(REPO, "tests", "fixtures", "elf", fixture), "rb") as f:
        write(root, path, f.read(), 0o755)


def ld_so_cache(values):
    """The new-format /etc/ld.so.cache (glibc's elf/cache.c) listing VALUES, the soname links of
    x86-64 libraries, as ldconfig 2.36 writes it: entries in its order (the reverse of
    _dl_cache_libcmp on the sonames), each key the soname at the end of its value's string, the
    strings in entry order, then the extension with the generator string."""
    values = sorted(values, key=lambda v: os.path.basename(v), reverse=True)
    header_size, entry_size = 48, 24
    strings = b"".join(v.encode() + b"\0" for v in values)
    table_at = header_size + entry_size * len(values)
    entries, at = b"", table_at
    for value in values:
        key_at = at + len(value) - len(os.path.basename(value))
        entries += struct.pack("<iIIIQ", 0x0303, key_at, at, 0, 0)  # FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
        at += len(value) + 1
    generator = b"ldconfig (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36"
    extension_at = (table_at + len(strings) + 3) & ~3
    header = b"glibc-ld.so.cache1.1" + struct.pack("<IIB3xI12x", len(values), len(strings), 2, extension_at)
    body = header + entries + strings
    body += b"\0" * (extension_at - len(body))
    section_at = extension_at + 8 + 16
    body += struct.pack("<II", 0xEAA42174, 1) + struct.pack("<IIII", 0, 0, section_at, len(generator)) + generator
    return body


def nvrm_version(version):
    # The open module's NVRM line as NVIDIA's builds print it (knowledge 3.1).
    return ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  "
            "(dvs-builder@U22-I3-B17-02-5)  Tue Jul  8 18:31:16 UTC 2025\n"
            "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04) \n" % version)


def gpu_information(model, bus, firmware):
    return ("Model: \t\t %s\nIRQ:   \t\t 185\nGPU UUID: \t GPU-6f1d0c52-2b4e-4c0a-9f1e-3d2c1b0a9e8f\n"
            "Video BIOS: \t 98.02.2e.00.0b\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n"
            "Bus Location: \t %s\nDevice Minor: \t 0\nGPU Firmware: \t %s\nGPU Excluded:\t No\n" % (model, bus, firmware))


def common_host(root, module_version, device_id, model):
    """An Ubuntu 24.04 machine with one GPU at 0000:01:00.0 driven by the open module."""
    write(root, "/etc/os-release", 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\n')
    write(root, "/proc/driver/nvidia/version", nvrm_version(module_version))
    # The module parameters as the real H200 host printed them (defaults: EnableGpuFirmware 18),
    # from the capture of that host (shared/fixtures/real/h200-container-580.159.04, verbatim).
    with open(os.path.join(HERE, "h200-container-580.159.04.capture.json"), encoding="utf-8") as f:
        params = json.load(f)["paths"]["/proc/driver/nvidia/params"]["read"]["lines"]
    write(root, "/proc/driver/nvidia/params", "\n".join(params))
    write(root, "/sys/module/nvidia/version", module_version + "\n")
    write(root, "/proc/modules",
          "nvidia_uvm 2076672 0 - Live 0xffffffffc2a00000 (OE)\n"
          "nvidia_drm 135168 2 - Live 0xffffffffc29d0000 (OE)\n"
          "nvidia_modeset 1720320 1 nvidia_drm, Live 0xffffffffc2800000 (OE)\n"
          "nvidia 11489280 3 nvidia_uvm,nvidia_modeset, Live 0xffffffffc1a00000 (OE)\n"
          "video 73728 1 nvidia_modeset, Live 0xffffffffc0b20000\n")
    write(root, "/proc/devices", "Character devices:\n  1 mem\n  4 tty\n195 nvidia\n195 nvidiactl\n"
                                 "195 nvidia-modeset\n508 nvidia-nvlink\n510 nvidia-uvm\n\nBlock devices:\n259 blkext\n")
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz-%s root=UUID=3e1b3c52-8a1f-4d7e-9b6a-5c2d1e0f9a8b ro quiet splash\n"
          % RELEASE)
    pci = "/sys/bus/pci/devices/0000:01:00.0"
    for name, value in {"vendor": "0x10de", "device": "0x" + device_id, "class": "0x030000",
                        "subsystem_vendor": "0x10de", "subsystem_device": "0x2104",
                        "current_link_speed": "32.0 GT/s PCIe", "current_link_width": "16",
                        "max_link_speed": "32.0 GT/s PCIe", "max_link_width": "16", "numa_node": "-1"}.items():
        write(root, pci + "/" + name, value + "\n")
    os.makedirs(root + "/sys/bus/pci/drivers/nvidia", exist_ok=True)
    link(root, pci + "/driver", "../../../bus/pci/drivers/nvidia")
    chardev(root, "/dev/null", 1, 3)  # a populated /dev (devtmpfs) always has it
    chardev(root, "/dev/nvidiactl", 195, 255)
    chardev(root, "/dev/nvidia0", 195, 0)
    chardev(root, "/dev/nvidia-modeset", 195, 254)
    chardev(root, "/dev/nvidia-uvm", 510, 0)
    chardev(root, "/dev/nvidia-uvm-tools", 510, 1)
    modules = "/lib/modules/" + LIVE_RELEASE
    os.makedirs(root + modules + "/build", exist_ok=True)
    write(root, modules + "/modules.dep", "kernel/fs/ext4/ext4.ko.zst: kernel/lib/crc16.ko.zst\n")


def disk_module(root, version):
    modules = "/lib/modules/" + LIVE_RELEASE
    write(root, modules + "/updates/dkms/nvidia.ko", module_elf([
        "version=" + version, "license=Dual MIT/GPL", "firmware=nvidia/%s/gsp_ga10x.bin" % version,
        "firmware=nvidia/%s/gsp_tu10x.bin" % version, "vermagic=%s SMP preempt mod_unload modversions " % RELEASE]))
    link(root, "/var/lib/dkms/nvidia/%s/source" % version, "/usr/src/nvidia-" + version)


def firmware(root, version):
    for name in ("gsp_ga10x.bin", "gsp_tu10x.bin"):
        write(root, "/lib/firmware/nvidia/%s/%s" % (version, name), "GSP firmware image stand-in\n")


def libraries(root, version):
    lib = "/usr/lib/x86_64-linux-gnu"
    links = []
    for name, soname, fixture in (("libcuda.so", "libcuda.so.1", "libcuda.x86_64.so"),
                                  ("libnvidia-ml.so", "libnvidia-ml.so.1", "libnvidia-ml.x86_64.so")):
        shared_library(root, "%s/%s.%s" % (lib, name, version), fixture)
        link(root, "%s/%s" % (lib, soname), "%s.%s" % (name, version))
        links.append("%s/%s" % (lib, soname))
    write(root, "/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    write(root, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf", lib + "\n")
    write(root, "/etc/ld.so.cache", ld_so_cache(links))  # what `ldconfig -r ROOT` writes


def blackwell_firmware_missing(root):
    common_host(root, "580.65.06", "2b85", "NVIDIA GeForce RTX 5090")
    write(root, "/proc/driver/nvidia/gpus/0000:01:00.0/information",
          gpu_information("NVIDIA GeForce RTX 5090", "0000:01:00.0", "N/A"))
    disk_module(root, "580.65.06")
    firmware(root, "570.124.06")  # the previous driver's folder only
    libraries(root, "580.65.06")
    # Kernel messages in the form of NVIDIA/open-gpu-kernel-modules#639 (there 550.76 on an RTX 4090).
    write(root, "/var/log/kern.log", "\n".join([
        "2026-11-29T09:12:01.100000+00:00 gpu1 kernel: Linux version %s (buildd@lcy02-amd64-013) #49-Ubuntu SMP "
        "PREEMPT_DYNAMIC Sat Nov  8 10:01:44 UTC 2026 (Ubuntu %s)" % (RELEASE, RELEASE),
        "2026-11-29T09:12:05.565746+00:00 gpu1 kernel: nvidia: loading out-of-tree module taints kernel.",
        "2026-11-29T09:12:05.659723+00:00 gpu1 kernel: nvidia-nvlink: Nvlink Core is being initialized, major device number 508",
        "2026-11-29T09:12:06.030254+00:00 gpu1 kernel: nvidia-modeset: Loading NVIDIA UNIX Open Kernel Mode Setting Driver "
        "for x86_64  580.65.06  Release Build  (dvs-builder@U22-I3-B17-02-5)  Tue Jul  8 18:31:16 UTC 2025",
        "2026-11-29T09:12:06.035486+00:00 gpu1 kernel: [drm] [nvidia-drm] [GPU ID 0x00000100] Loading driver",
        "2026-11-29T09:12:06.036183+00:00 gpu1 kernel: nvidia 0000:01:00.0: Direct firmware load for "
        "nvidia/580.65.06/gsp_ga10x.bin failed with error -2",
        "2026-11-29T09:12:06.036201+00:00 gpu1 kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x61:0x0:1755)",
        "2026-11-29T09:12:06.036350+00:00 gpu1 kernel: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
        ""]))


def upgrade_without_reboot(root):
    common_host(root, "570.124.06", "2330", "NVIDIA H100 80GB HBM3")
    write(root, "/proc/driver/nvidia/gpus/0000:01:00.0/information",
          gpu_information("NVIDIA H100 80GB HBM3", "0000:01:00.0", "570.124.06"))
    disk_module(root, "580.65.06")
    firmware(root, "580.65.06")   # the upgrade replaced the firmware folder too
    libraries(root, "580.65.06")


def capture_of(gpudoctor, build):
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        os.makedirs(root)
        build(root)
        out = subprocess.run([gpudoctor, "--root", root, "--json"], capture_output=True, text=True, env=ENV, cwd="/")
        if out.returncode not in (0, 1):
            sys.exit(out.stderr)
        capture = json.loads(out.stdout)["capture"]
    # The run happened under this machine's kernel: give the capture the scenario's.
    renamed = {}
    for path, entry in capture["paths"].items():
        renamed[path.replace(LIVE_RELEASE, RELEASE)] = entry
    capture["paths"] = dict(sorted(renamed.items()))
    capture["uname"].update({"nodename": "gpu1", "release": RELEASE, "version": "#49-Ubuntu SMP PREEMPT_DYNAMIC",
                             "machine": "x86_64"})
    capture["root"] = "/"
    capture["created_by"] = "tests/hosts/make_kmod_scenarios.py (%s)" % build.__name__
    # Device nodes: this machine has no NVIDIA driver behind 195/510; the scenario's host opens them.
    for path, entry in capture["paths"].items():
        if path.startswith("/dev/nvidia") and "open" in entry:
            entry["open"] = "ok"
    return capture


def main():
    args = sys.argv[1:]
    out = HERE
    if len(args) == 3 and args[1] == "--out":
        out = os.path.join(args[2], "tests", "hosts")
        os.makedirs(out, exist_ok=True)
    elif len(args) != 1:
        sys.exit(__doc__)
    os.umask(0o022)  # the modes of the files written are captured
    for name, build in (("blackwell-firmware-missing", blackwell_firmware_missing),
                        ("upgrade-without-reboot", upgrade_without_reboot)):
        capture = capture_of(os.path.abspath(args[0]), build)
        with open(os.path.join(out, name + ".capture.json"), "w", encoding="utf-8") as f:
            json.dump(capture, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("wrote", name)


if __name__ == "__main__":
    main()
