#!/usr/bin/env python3
"""Builds tests/hosts/h200-container-580.159.04.capture.json from the verbatim files of a real,
healthy H200 host in shared/fixtures/real/h200-container-580.159.04/ and from what its
observations.md records (device nodes, environment, uname, the helper's results).

Run once by hand when the fixture changes: python3 tests/hosts/make_h200_container_capture.py
Nothing is invented: every value below is quoted from observations.md; facts it does not record
(total GPU memory) are left out of the helper reply rather than guessed.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "..", "shared", "fixtures", "real", "h200-container-580.159.04")
OUT = os.path.join(HERE, "h200-container-580.159.04.capture.json")


def lines(text):
    return {"lines": text.split("\n")}


def verbatim_files():
    paths = {}
    for top in ("proc", "sys", "opt"):
        for folder, _, files in os.walk(os.path.join(FIXTURE, top)):
            for name in files:
                full = os.path.join(folder, name)
                rel = "/" + os.path.relpath(full, FIXTURE)
                with open(full, "rb") as f:
                    paths[rel] = {"read": lines(f.read().decode("utf-8"))}
    return paths


# observations.md, "devnodes": ls -l /dev/nvidia* /dev/nvidia-caps (as root; cuInit succeeded).
DEVNODES = {
    "/dev/nvidia0": (195, 0, "0666"),
    "/dev/nvidiactl": (195, 255, "0666"),
    "/dev/nvidia-uvm": (238, 0, "0666"),
    "/dev/nvidia-uvm-tools": (238, 1, "0666"),
    "/dev/nvidia-caps/nvidia-cap1": (241, 1, "0400"),
    "/dev/nvidia-caps/nvidia-cap2": (241, 2, "0444"),
}

# observations.md, "pci": the one NVIDIA function the machine listed under /sys/bus/pci/devices,
#   /sys/bus/pci/devices/0000:00:06.0 0x2335 0x030200 0x18bf drv=nvidia link=32.0 GT/s PCIe 16
# i.e. device, class, subsystem_device, the basename of the driver link, current_link_speed and
# current_link_width. The vendor file was not printed; 0x10de is what the same observation implies
# (the nvidia driver is bound to it, and proc/driver/nvidia/gpus/0000:00:06.0 and NVML name it an
# NVIDIA H200). The driver link's target is written the way sysfs writes it for a device on root
# bus 0000:00 (relative, from /sys/devices/pci0000:00/0000:00:06.0); gpudoctor reads only its last
# segment, the one observed. Attributes the observation does not show (subsystem_vendor,
# max_link_*, numa_node, iommu_group) are left out: replaying them gives ENOENT, i.e. absent.
# Only this function is recorded, so the folder listing has this one entry; functions of other
# vendors change no fact.
PCI_GPU = "/sys/bus/pci/devices/0000:00:06.0"
PCI_FILES = {
    "vendor": "0x10de\n",
    "device": "0x2335\n",
    "class": "0x030200\n",
    "subsystem_device": "0x18bf\n",
    "current_link_speed": "32.0 GT/s PCIe\n",
    "current_link_width": "16\n",
}
PCI_DRIVER_LINK = "../../../bus/pci/drivers/nvidia"

# observations.md, "env" (the allowlisted variables; everything else there is not read).
ENV = {
    "NVIDIA_VISIBLE_DEVICES": "0",
    "NVIDIA_DRIVER_CAPABILITIES": "compute,graphics,utility",
    "NVIDIA_PRODUCT_NAME": "CUDA",
    "CUDA_VERSION": "13.0.2",
    "CUDA_HOME": "/usr/local/cuda",
    "TORCH_CUDA_ARCH_LIST": "9.0a",
    "NCCL_VERSION": "2.28.3-1",
    "LD_LIBRARY_PATH": "/usr/local/nvidia/lib64:/usr/local/nvidia/lib",
    "PATH": "/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/gcc/bin",
    "CUDA_VISIBLE_DEVICES": None,
    "LD_PRELOAD": None,
}


# observations.md "libs": `ls -la /usr/local/nvidia/lib64` (the listing as printed; it stops at
# libnvidia-glcore, so the folder gets no "list": replay derives its entries from the paths).
def nvidia_lib64_listing():
    entries = {}
    with open(os.path.join(FIXTURE, "observations.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("### libs\n```\n", 1)[1].split("```", 1)[0]
    for line in section.splitlines():
        parts = line.split()
        if len(parts) < 9 or parts[0][0] not in "-l" or parts[8] in (".", ".."):
            continue
        name = parts[8]
        path = "/usr/local/nvidia/lib64/" + name
        if parts[0].startswith("l"):
            entries[path] = {"lstat": {"type": "symlink", "mode": "0777", "uid": 0, "gid": 0}, "link": parts[10]}
        else:
            entries[path] = {"stat": {"type": "file", "mode": "0755", "uid": 0, "gid": 0, "size": int(parts[4])}}
    return entries


# Files observations.md names without their type or content: "libs" (a find of libcuda.so*
# outside /usr/local/nvidia) and "ldcache" (ldconfig -p lists libnvidia-ml.so.1 and libnvidia-ml.so
# in /usr/local/nvidia/lib64). ldconfig only caches ELF shared objects, and a name found by find
# is either such a file or a link to one, so stat (which follows links) is a regular file; whether
# each is a link, and to what, is not recorded, so neither is here. Their mode, owner and size were
# not recorded either: the capture format needs values, so these carry the placeholders 0644, root
# and 0 (nothing reads them). The /lib/... entries of the cache listing are left out: whether /lib
# is a link to usr/lib there is not recorded.
NAMED_LIBRARY_FILES = [
    "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
    "/usr/local/nvidia/lib64/libnvidia-ml.so",
    "/usr/lib/libcuda.so",
    "/usr/lib/libcuda.so.1",
    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so",
    "/usr/local/cuda-13.0/compat/libcuda.so",
    "/usr/local/cuda-13.0/compat/libcuda.so.580.95.05",
    "/usr/local/cuda-13.0/compat/libcuda.so.1",
]

# observations.md "uname": the os-release lines it printed (only these three; ID is not among them).
OS_RELEASE = 'PRETTY_NAME="Ubuntu 24.04.3 LTS"\nNAME="Ubuntu"\nVERSION_ID="24.04"\n'

# observations.md "uname": `ldd --version` printed "ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39". glibc's
# ldd script prints that line with `echo 'ldd (PKGVERSION) VERSION'` (elf/ldd.bash.in); the capture
# holds that one line of /usr/bin/ldd, not the rest of the script, which was not recorded.
LDD_SCRIPT = "    echo 'ldd (Ubuntu GLIBC 2.39-0ubuntu8.9) 2.39'\n"


# observations.md "cgroup" and "virt" (containers probe). Only what those commands printed:
# - `cat /proc/self/cgroup` gave the single cgroup v2 line below;
# - of /proc/self/mountinfo only its cgroup line was printed, so the capture holds that one line
#   (the rest of the mount table was not recorded);
# - /.dockerenv exists: `ls -l` showed "-rwxr-xr-x 1 root root 0" (an empty regular file);
# - the CPU has the "hypervisor" flag: the command printed only the word "hypervisor", not the
#   whole /proc/cpuinfo, so the capture holds a minimal cpuinfo with one "flags" line listing
#   just that flag (its other flags were not recorded);
# - /sys/class/dmi/id/product_name and sys_vendor and /run/.containerenv do not exist: they are
#   left out, and replay answers ENOENT for them.
PROC_SELF_CGROUP = "0::/process_api/636c326387033a79cabd8cf06325d8d6\n"
PROC_SELF_MOUNTINFO = ("32 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 "
                       "rw,nsdelegate,memory_recursiveprot\n")
MINIMAL_CPUINFO = "flags\t\t: hypervisor\n"


def nvidia_require_cuda():
    with open(os.path.join(FIXTURE, "observations.md"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("NVIDIA_REQUIRE_CUDA="):
                return line.rstrip("\n").split("=", 1)[1]
    sys.exit("observations.md has no NVIDIA_REQUIRE_CUDA line")


# observations.md: cuInit 0, 1 device "NVIDIA H200", sm_90, cuDriverGetVersion 13000, about
# 230 ms; the GPU's UUID and bus id come from proc/driver/nvidia/gpus/0000:00:06.0/information.
REPLY = "\n".join([
    "gpudoctor-helper\t1",
    "stage\tdlopen-cuda", "cuda.dlopen\tok", "cuda.path\t/usr/local/nvidia/lib64/libcuda.so.580.159.04",
    "stage\tcuDriverGetVersion", "cuda.driver_version.result\t0", "cuda.driver_version\t13000",
    "stage\tcuInit", "cuda.init.result\t0", "cuda.init.name\tCUDA_SUCCESS", "cuda.init.text\tno error",
    "cuda.init.duration_us\t230000",
    "stage\tcuDeviceGetCount", "cuda.device_count.result\t0", "cuda.device_count\t1",
    "stage\tdevice:0", "cuda.device.0.name\tNVIDIA H200",
    "cuda.device.0.uuid\tGPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f", "cuda.device.0.pci_bus_id\t0000:00:06.0",
    "cuda.device.0.cc_major\t9", "cuda.device.0.cc_minor\t0",
    "stage\tcontext:0", "cuda.device.0.context.result\t0", "cuda.device.0.context.name\tCUDA_SUCCESS",
    "cuda.device.0.alloc.result\t0", "cuda.device.0.alloc.name\tCUDA_SUCCESS",
    "stage\tdlopen-nvml", "nvml.dlopen\tok", "nvml.path\t/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04",
    "stage\tnvmlInit", "nvml.init.result\t0", "nvml.init.text\tSuccess", "nvml.driver_version\t580.159.04",
    "nvml.device_count.result\t0", "nvml.device_count\t1",
    "stage\tnvml-device:0", "nvml.device.0.name\tNVIDIA H200",
    "nvml.device.0.uuid\tGPU-e2c36f54-4ba0-bb4c-8061-b412f65acb9f", "nvml.device.0.pci_bus_id\t00000000:00:06.0",
    "stage\tdone", "end\tok", "",
])


def main():
    if not os.path.isdir(FIXTURE):
        sys.exit("no fixture " + os.path.normpath(FIXTURE) + " (the shared/ folder beside the repository)")
    paths = verbatim_files()
    for path, (major, minor, mode) in DEVNODES.items():
        paths[path] = {"stat": {"type": "char", "major": major, "minor": minor, "mode": mode, "uid": 0, "gid": 0},
                       "open": "ok"}
    for name, content in PCI_FILES.items():
        paths[PCI_GPU + "/" + name] = {"read": lines(content)}
    paths[PCI_GPU + "/driver"] = {"link": PCI_DRIVER_LINK}
    paths.update(nvidia_lib64_listing())
    for path in NAMED_LIBRARY_FILES:
        paths[path] = {"stat": {"type": "file", "mode": "0644", "uid": 0, "gid": 0, "size": 0}}
    paths["/etc/os-release"] = {"read": lines(OS_RELEASE)}
    paths["/usr/bin/ldd"] = {"read": lines(LDD_SCRIPT)}
    paths["/proc/self/cgroup"] = {"read": lines(PROC_SELF_CGROUP)}
    paths["/proc/self/mountinfo"] = {"read": lines(PROC_SELF_MOUNTINFO)}
    paths["/.dockerenv"] = {"stat": {"type": "file", "mode": "0755", "uid": 0, "gid": 0, "size": 0}}
    paths["/proc/cpuinfo"] = {"read": lines(MINIMAL_CPUINFO)}
    env = dict(ENV)
    env["NVIDIA_REQUIRE_CUDA"] = nvidia_require_cuda()
    capture = {
        "format": "gpudoctor-capture",
        "version": 1,
        "created_by": "tests/hosts/make_h200_container_capture.py from shared/fixtures/real/h200-container-580.159.04",
        "root": "/",
        "identity": {"uid": 0, "gid": 0, "groups": []},
        "uname": {"sysname": "Linux", "nodename": "vm", "release": "6.18.44-fc-v657-gpu",
                  "version": "#1 SMP PREEMPT_DYNAMIC @0", "machine": "x86_64"},
        "env": env,
        "paths": dict(sorted(paths.items())),
        "helper_runs": [{
            "mode": "user-env", "timeout_ms": 30000, "status": "finished", "exit_code": 0, "signal": 0,
            "duration_ms": 360, "loader": "/lib64/ld-linux-x86-64.so.2", "error": "", "output_cut": False,
            "reply": lines(REPLY), "stdout": lines(""), "stderr": lines(""),
        }],
    }
    # --out DIR writes DIR/tests/hosts/<name> instead (tests/e2e/test_generators.sh compares it).
    out = OUT
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        out = os.path.join(sys.argv[2], "tests", "hosts", os.path.basename(OUT))
        os.makedirs(os.path.dirname(out), exist_ok=True)
    elif len(sys.argv) != 1:
        sys.exit("usage: make_h200_container_capture.py [--out DIR]")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(capture, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("wrote", os.path.relpath(out))


if __name__ == "__main__":
    main()
