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
an ld.so.cache written by the real ldconfig), the values those of the situations above. The tree is
built in a temporary folder and read by gpudoctor itself (`--root DIR --json`), so the capture holds
exactly what every probe read; the kernel release of the machine that ran it is then renamed to the
scenario's.

Run by hand when the scenarios change: python3 tests/hosts/make_kmod_scenarios.py <build>/gpudoctor
(needs root for mknod, gcc and ldconfig).
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
RELEASE = "6.8.0-49-generic"
LIVE_RELEASE = platform.release()


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


def shared_library(root, path, soname):
    """A real ELF shared object with the driver's soname, so that ldconfig caches it."""
    src = os.path.join(root, "..", "empty.c")
    with open(src, "w") as f:
        f.write("int gpudoctor_scenario_symbol;\n")
    os.makedirs(os.path.dirname(root + path), exist_ok=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-nostdlib", "-Wl,-soname," + soname, "-o", root + path, src], check=True)


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
    h200 = os.path.join(HERE, "..", "..", "..", "shared", "fixtures", "real", "h200-container-580.159.04")
    write(root, "/etc/os-release", 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\n')
    write(root, "/proc/driver/nvidia/version", nvrm_version(module_version))
    # The module parameters as the real H200 host printed them (defaults: EnableGpuFirmware 18).
    with open(os.path.join(h200, "proc/driver/nvidia/params"), encoding="utf-8") as f:
        write(root, "/proc/driver/nvidia/params", f.read())
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
    for name, soname in (("libcuda.so", "libcuda.so.1"), ("libnvidia-ml.so", "libnvidia-ml.so.1")):
        shared_library(root, "%s/%s.%s" % (lib, name, version), soname)
        link(root, "%s/%s" % (lib, soname), "%s.%s" % (name, version))
    write(root, "/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n")
    write(root, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf", lib + "\n")
    subprocess.run(["ldconfig", "-r", root], check=True)


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
        out = subprocess.run([gpudoctor, "--root", root, "--json"], capture_output=True, text=True)
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
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name, build in (("blackwell-firmware-missing", blackwell_firmware_missing),
                        ("upgrade-without-reboot", upgrade_without_reboot)):
        capture = capture_of(os.path.abspath(sys.argv[1]), build)
        with open(os.path.join(HERE, name + ".capture.json"), "w", encoding="utf-8") as f:
            json.dump(capture, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("wrote", name)


if __name__ == "__main__":
    main()
