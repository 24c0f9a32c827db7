#!/usr/bin/env python3
"""Writes the whole-host cases of the ML-stack rules (rules/ml/*.toml, rules/toolkit/*.toml, and the NCCL
layer's rules/nccl/*.toml, whose copies live in the same venv):
OUT/tests/rules/<rule-id>/hosts/{positive,negative}-*.host.json. They are not stored: the ctest
fixture test.inputs writes them into <build>/generated/ (make_test_inputs.sh), where
tests/unit/rules/test_rule_hosts.cpp reads them beside the committed cases.

Every case is the real H200 capture tests/hosts/h200-live-ml.capture.json (driver 580.159.04, a uv
venv /opt/torch/.venv with torch 2.11.0+cu130, CUDA 13.0 at /usr/local/cuda-13.0, gcc 13 through
CC=/opt/gcc/bin/gcc) plus what differs. The differences are built here from a few pieces, so that
the same situation reads the same in every case that uses it:

  venvs       torch 2.6.0 (the PyPI wheel, CUDA 12.4) and 2.6.0+cu126 with the nvidia-*-cu12 wheels
              they pin; the CPU build 2.11.0+cpu reinstalled over the real venv. Pins come from
              tests/fixtures/python/ (torch 2.6.0's requires_dist on PyPI) and from pytorch's
              .github/scripts/generate_binary_build_matrix.py of the 2.6 release (its "12.4" block
              is PyPI's list; its "12.6" block is the cu126 wheel's).
  libtorch    torch 2.6.0+cu124's libtorch_cuda.so is not on the device: a tiny ELF stand-in with a
              .nv_fatbin section holds fat binaries with the architectures that wheel prints
              (sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90, no PTX: pytorch PR #143538), headers laid
              out as src/probes/shared/cuda_fatbin.hpp describes, payloads left as placeholders.
              The same stand-in, with fat binaries of different architecture lists, is an
              extension or a libtorch in which only a few fat binaries carry the GPU's code.
  drivers     the same container on a 570.124.06 (CUDA 12.8) or 550.54.15 (CUDA 12.4) host: every
              place the real capture names 580.159.04 (module, /sys, GPU information, kernel log,
              firmware folder, the mounted driver libraries, the helper's reply) renamed.
  gpu         an RTX PRO 6000 Blackwell Server Edition (10de:2bb5, subsystem 10de:204e, cc 12.0)
              in place of the H200 (PCI ids, /proc/driver/nvidia information, the helper's reply).
  toolkits    a CUDA 12.8 toolkit beside 13.0 (/usr/local/cuda-12.8: nvcc, cuda.h, host_config.h
              as the 13.0 files with the 12.8 values), runtime libraries of CUDA 12.1 and 12.4.

Run from anywhere: python3 tests/hosts/make_ml_scenarios.py --out OUT. The output is deterministic
(tests/e2e/test_generators.sh reruns it in a polluted environment and compares).
"""
import base64
import copy
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "python")
BASE_NAME = "h200-live-ml"
BASE = json.load(open(os.path.join(HERE, BASE_NAME + ".capture.json")))
PATHS = BASE["paths"]

VENV = "/opt/torch/.venv"
SITE = VENV + "/lib/python3.12/site-packages"
TORCH = SITE + "/torch"
LIBTORCH = TORCH + "/lib/libtorch_cuda.so"
SYS_SITE = "/usr/local/lib/python3.12/dist-packages"  # Debian/Ubuntu's site folder for pip as root
USER_SITE = "/root/.local/lib/python3.12/site-packages"
GPU = "0000:00:06.0"
DRIVER = "580.159.04"


def lines(text):
    """A file's text as a capture's "lines" (a final "" stands for the trailing newline)."""
    return text.split("\n")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def read(text_lines):
    return {"read": {"lines": text_lines}}


def base_lines(path):
    return list(PATHS[path]["read"]["lines"])


def site_listing(remove=(), add=()):
    """The venv's site-packages listing without `remove` and with `add` (sorted, as captured)."""
    names = [n for n in PATHS[SITE]["list"] if n not in set(remove)]
    missing = [n for n in remove if n not in PATHS[SITE]["list"]]
    assert not missing, missing
    return {"list": sorted(set(names) | set(add))}


def merge(*parts):
    """Merges case fragments: dicts are merged key by key (a later value wins), lists appended."""
    out = {}
    for part in parts:
        for key, value in part.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = merge(out[key], value)
            else:
                out[key] = copy.deepcopy(value)
    return out


# ---------------------------------------------------------------- pins and dist-info folders

def requires_dist(text):
    return [l[len("Requires-Dist: "):] for l in text.split("\n") if l.startswith("Requires-Dist: ")]


TORCH_26_METADATA = fixture("torch-2.6.0.pypi-requires-dist")
# pytorch .github/scripts/generate_binary_build_matrix.py of the 2.6 release (CUDA_ARCHES 11.8,
# 12.4, 12.6; its "12.4" list is exactly torch 2.6.0's requires_dist on PyPI): the "12.6" list.
CU126_PINS = [
    ("nvidia-cuda-nvrtc-cu12", "12.6.77"), ("nvidia-cuda-runtime-cu12", "12.6.77"),
    ("nvidia-cuda-cupti-cu12", "12.6.80"), ("nvidia-cudnn-cu12", "9.5.1.17"),
    ("nvidia-cublas-cu12", "12.6.4.1"), ("nvidia-cufft-cu12", "11.3.0.4"),
    ("nvidia-curand-cu12", "10.3.7.77"), ("nvidia-cusolver-cu12", "11.7.1.2"),
    ("nvidia-cusparse-cu12", "12.5.4.2"), ("nvidia-cusparselt-cu12", "0.6.3"),
    ("nvidia-nccl-cu12", "2.21.5"), ("nvidia-nvtx-cu12", "12.6.77"), ("nvidia-nvjitlink-cu12", "12.6.85"),
]


def pins_of(metadata):
    """(name, version) of the nvidia-* and triton pins of a torch METADATA."""
    out = []
    for req in requires_dist(metadata):
        spec = req.split(";")[0].strip()
        if "==" in spec and (spec.startswith("nvidia-") or spec.startswith("triton")):
            name, version = spec.split("==")
            out.append((name.strip(), version.strip()))
    return out


CU124_PINS = [p for p in pins_of(TORCH_26_METADATA) if p[0] != "triton"]


def dist_info(name, version):
    """The .dist-info folder a wheel installs: the name with '-' as '_' (wheel spec)."""
    return name.replace("-", "_") + "-" + version + ".dist-info"


def cu126_metadata():
    """torch 2.6.0+cu126's METADATA: PyPI's 2.6.0 one with the cu126 wheel's version and pins."""
    out = []
    for line in TORCH_26_METADATA.split("\n"):
        if line == "Version: 2.6.0":
            line = "Version: 2.6.0+cu126"
        if line.startswith("Requires-Dist: nvidia-"):
            continue
        if line.startswith("Requires-Dist: triton"):
            for name, version in CU126_PINS:
                out.append(f'Requires-Dist: {name}=={version}; platform_system == "Linux" and platform_machine == "x86_64"')
        out.append(line)
    return "\n".join(out)


# The real venv's CUDA 13 wheels (the torch cu130 pins and what cuda-toolkit pulls in).
CU13_WHEELS = [n for n in PATHS[SITE]["list"] if n.startswith("nvidia_") and not n.startswith("nvidia_ml_py")]
JAX_CUPY_CUDA13 = ["cupy", "cupy_backends", "cupy_cuda13x-14.2.0.dist-info", "cupyx", "jax_cuda13_pjrt-0.11.2.dist-info",
                   "jax_cuda13_plugin", "jax_cuda13_plugin-0.11.2.dist-info"]
TORCH_211 = ["torch-2.11.0.dist-info", "torchaudio", "torchaudio-2.11.0.dist-info", "torchvision",
             "torchvision-0.26.0.dist-info", "torchvision.libs", "triton-3.6.0.dist-info", "cuda_toolkit-13.0.2.dist-info"]
GONE_WITH_TORCH_211 = {
    SITE + "/torch-2.11.0.dist-info/METADATA": None,
    SITE + "/cuda_toolkit-13.0.2.dist-info/METADATA": None,
    SITE + "/torchaudio-2.11.0.dist-info/METADATA": None,
    SITE + "/torchaudio-2.11.0.dist-info/direct_url.json": None,
    SITE + "/torchvision-0.26.0.dist-info/METADATA": None,
    SITE + "/torchvision-0.26.0.dist-info/direct_url.json": None,
}


def torch_version_py(version, cuda):
    """torch/version.py of a 2.6.0 build (tools/generate_torch_version.py of that release)."""
    text = fixture("torch-2.6.0+cu124.version.py")
    text = text.replace("__version__ = '2.6.0+cu124'", f"__version__ = '{version}'")
    return text.replace("cuda: Optional[str] = '12.4'", f"cuda: Optional[str] = '{cuda}'")


# ---------------------------------------------------------------- libtorch_cuda.so stand-in

ARCH_SPECIFIC = 0x100000  # the entry flag of an "a" target (sm_90a), src/probes/shared/cuda_fatbin.hpp


def fatbin_container(arches):
    """One fat binary: the 16-byte container header, then per arch a 64-byte ELF-cubin entry
    header (kind 2, version 0x0101, flags 64-bit | Linux) and a 16-byte placeholder payload. An
    arch is a number (90: sm_90) or a string with its suffix ("90a": sm_90a)."""
    entries = b""
    for arch in arches:
        flags = 0x11
        if isinstance(arch, str):
            arch, flags = int(arch.rstrip("a")), 0x11 | ARCH_SPECIFIC
        payload = b"\x7fELF" + b"\0" * 12
        entries += struct.pack("<HHIQIIHHIIIQQQ", 2, 0x0101, 64, len(payload), 0, 0, 8, 1, arch, 0, 0, flags, 0, 0)
        entries += payload
    return struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(entries)) + entries


def libtorch_stand_in(arches, containers=3):
    """A small x86-64 ELF shared object: .text, .nv_fatbin (`containers` fat binaries with the
    same architecture list, as each translation unit of libtorch_cuda.so has), .shstrtab."""
    return cuda_library_stand_in([arches] * containers)


def cuda_library_stand_in(container_arches):
    """The same ELF with one fat binary per entry of `container_arches` (its architecture list):
    translation units built for different lists, as a library adds a few arch-specific kernels."""
    names = b"\0.text\0.nv_fatbin\0.shstrtab\0"
    body = bytearray(64)
    text_at = len(body)
    body += b"\x90" * 16
    fatbin_at = len(body)
    fatbin = b"".join(fatbin_container(arches) for arches in container_arches)
    body += fatbin
    names_at = len(body)
    body += names
    while len(body) % 8:
        body += b"\0"
    table_at = len(body)
    # name, type, flags, addr, offset, size, link, info, align, entsize
    sections = [(0, 0, 0, 0, 0, 0, 0), (1, 1, 6, text_at, 16, 16, 0), (7, 1, 2, fatbin_at, len(fatbin), 8, 0),
                (18, 3, 0, names_at, len(names), 1, 0)]
    for name, kind, flags, offset, size, align, _ in sections:
        body += struct.pack("<IIQQQQIIQQ", name, kind, flags, offset, offset, size, 0, 0, align, 0)
    struct.pack_into("<4sBBBBB7xHHIQQQIHHHHHH", body, 0, b"\x7fELF", 2, 1, 1, 0, 0, 3, 62, 1, 0, 0, table_at, 0,
                     64, 56, 0, 64, len(sections), len(sections) - 1)
    return bytes(body)


TORCH_26_ARCHES = [50, 60, 70, 75, 80, 86, 90]  # "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90" (PR #143538)
LIBTORCH_26 = libtorch_stand_in(TORCH_26_ARCHES)
LIBTORCH_26_ENTRY = {
    "read": {"base64": base64.b64encode(LIBTORCH_26).decode()},
    "stat": {"gid": 0, "mode": "0755", "size": len(LIBTORCH_26), "type": "file", "uid": 0},
}


# ---------------------------------------------------------------- venv variants

def venv_cu12(version, folder, cuda, metadata, pins):
    """The venv with torch `version` (CUDA `cuda`, dist-info `folder`) and the cu12 wheels it pins
    in place of torch 2.11.0+cu130 and everything that came with it (cu13 wheels, cuda-toolkit,
    torchvision, torchaudio, jax's and cupy's CUDA 13 builds)."""
    remove = TORCH_211 + CU13_WHEELS + JAX_CUPY_CUDA13
    add = [folder, "triton-3.2.0.dist-info"] + [dist_info(n, v) for n, v in pins]
    return {
        "paths": merge(GONE_WITH_TORCH_211, {
            SITE: site_listing(remove, add),
            SITE + "/" + folder + "/METADATA": read(lines(metadata)),
            TORCH + "/version.py": read(lines(torch_version_py(version, cuda))),
            LIBTORCH: LIBTORCH_26_ENTRY,
        })
    }


# torch 2.6.0 from PyPI: the CUDA 12.4 build, version.py '2.6.0+cu124', dist-info torch-2.6.0.
# (PyPI's wheel keeps the local version out of its file and dist-info names; the index's keep it.)
VENV_CU124 = venv_cu12("2.6.0+cu124", "torch-2.6.0.dist-info", "12.4", TORCH_26_METADATA + "\n", CU124_PINS)
VENV_CU126 = venv_cu12("2.6.0+cu126", "torch-2.6.0+cu126.dist-info", "12.6", cu126_metadata() + "\n", CU126_PINS)
ABOUT_CU124 = ("the venv holds torch 2.6.0 from PyPI (version.py '2.6.0+cu124', CUDA 12.4) with the nvidia-*-cu12 "
               "wheels and triton 3.2.0 it pins (its METADATA is PyPI's requires_dist for 2.6.0), in place of torch "
               "2.11.0+cu130, its CUDA 13 wheels, torchvision, torchaudio and the CUDA 13 builds of jax and cupy")
ABOUT_CU126 = ("the venv holds torch 2.6.0+cu126 (download.pytorch.org/whl/cu126) with the nvidia-*-cu12 wheels and "
               "triton 3.2.0 it pins (the \"12.6\" list of pytorch's 2.6 binary build matrix), in place of torch "
               "2.11.0+cu130, its CUDA 13 wheels, torchvision, torchaudio and the CUDA 13 builds of jax and cupy")
ABOUT_LIB26 = ("its torch/lib/libtorch_cuda.so is a small synthetic ELF stand-in whose .nv_fatbin section holds fat "
               "binaries with the architecture list of the real wheel: SASS sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 "
               "and no PTX (torch 2.6 cu124/cu126 print \"sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90\", pytorch PR "
               "#143538; knowledge file section 6.2)")


def cpu_metadata():
    """torch 2.11.0+cpu's METADATA headers: the real 2.11.0 ones with the CPU build's version and
    without the CUDA requirements (cuda-toolkit, cuda-bindings, nvidia-*, triton), which only the
    CUDA builds add; the long description after the headers is left out."""
    head = base_lines(SITE + "/torch-2.11.0.dist-info/METADATA")
    head = head[: head.index("")]
    out = []
    for line in head:
        if line == "Version: 2.11.0":
            line = "Version: 2.11.0+cpu"
        if line.startswith("Requires-Dist: ") and line.split(": ", 1)[1].startswith(("cuda-", "nvidia-", "triton")):
            continue
        out.append(line)
    return out + ["", ""]


VENV_CPU = {
    "paths": {
        SITE: site_listing(["torch-2.11.0.dist-info"], ["torch-2.11.0+cpu.dist-info"]),
        SITE + "/torch-2.11.0.dist-info/METADATA": None,
        SITE + "/torch-2.11.0+cpu.dist-info/METADATA": read(cpu_metadata()),
        LIBTORCH: None,
    },
    "replace_lines": {
        TORCH + "/version.py": {
            "__version__ = '2.11.0+cu130'": "__version__ = '2.11.0+cpu'",
            "cuda: Optional[str] = '13.0'": "cuda: Optional[str] = None",
        }
    },
}
ABOUT_CPU = ("torch was reinstalled from the CPU index (pip install --force-reinstall torch --index-url "
             "https://download.pytorch.org/whl/cpu): version.py says '2.11.0+cpu' with cuda None, the dist-info is "
             "torch-2.11.0+cpu (the real 2.11.0 METADATA headers without the CUDA requirements), there is no "
             "libtorch_cuda.so, and the CUDA 13 wheels and triton of the CUDA build stay behind")

# ---------------------------------------------------------------- driver variants


def driver_swap(new, cuda_int):
    """The container on a host with driver `new` (cuDriverGetVersion `cuda_int`): every file of
    the capture that names 580.159.04 renamed. /etc/ld.so.cache keeps its entries for the GL
    libraries (the only ones in it that carry the version): no probe resolves those."""
    paths = {}
    for folder in ("/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"):
        paths[folder] = merge(PATHS[folder], {"list": [n.replace(DRIVER, new) for n in PATHS[folder]["list"]]})
    for lib in ("libcuda.so", "libnvidia-ml.so"):
        old_file = f"/usr/local/nvidia/lib64/{lib}.{DRIVER}"
        paths[old_file] = None
        paths[f"/usr/local/nvidia/lib64/{lib}.{new}"] = PATHS[old_file]
        paths[f"/usr/local/nvidia/lib64/{lib}.1"] = merge(PATHS[f"/usr/local/nvidia/lib64/{lib}.1"],
                                                          {"link": f"{lib}.{new}"})
    fw = "/usr/local/nvidia/firmware/nvidia"
    paths[fw] = {"list": [new]}
    paths[f"{fw}/{DRIVER}"] = None
    paths[f"{fw}/{DRIVER}/gsp_ga10x.bin"] = None
    paths[f"{fw}/{new}"] = PATHS[f"{fw}/{DRIVER}"]
    paths[f"{fw}/{new}/gsp_ga10x.bin"] = PATHS[f"{fw}/{DRIVER}/gsp_ga10x.bin"]
    replace = {}
    for path in ("/proc/driver/nvidia/version", "/sys/module/nvidia/version", f"/proc/driver/nvidia/gpus/{GPU}/information",
                 "/dev/kmsg"):
        replace[path] = {l: l.replace(DRIVER, new) for l in base_lines(path) if DRIVER in l}
    reply = {
        "cuda.path": f"/usr/local/nvidia/lib64/libcuda.so.{new}",
        "cuda.driver_version": str(cuda_int),
        "nvml.path": f"/usr/local/nvidia/lib64/libnvidia-ml.so.{new}",
        "nvml.driver_version": new,
    }
    return {"paths": paths, "replace_lines": replace, "helper_reply": {"user-env": reply}}


DRIVER_570 = driver_swap("570.124.06", 12080)
DRIVER_550 = driver_swap("550.54.15", 12040)
ABOUT_570 = ("The real H200 container on a host whose driver is 570.124.06 (CUDA 12.8, the driver of CUDA 12.8.1): the "
             "module, its /sys and /proc files, the GPU's firmware, the mounted driver libraries and the helper's "
             "cuDriverGetVersion (12080) say so (/etc/ld.so.cache keeps the 580 names of the GL libraries, its only "
             "versioned entries, which no probe resolves)")
ABOUT_550 = ("The real H200 container on a host whose driver is 550.54.15 (CUDA 12.4, the driver of CUDA 12.4.1): the "
             "module, its /sys and /proc files, the GPU's firmware, the mounted driver libraries and the helper's "
             "cuDriverGetVersion (12040) say so (/etc/ld.so.cache keeps the 580 names of the GL libraries, its only "
             "versioned entries, which no probe resolves)")

# ---------------------------------------------------------------- the Blackwell GPU

RTX_PRO_NAME = "NVIDIA RTX PRO 6000 Blackwell Server Edition"
RTX_PRO_6000 = {
    "replace_lines": {
        f"/sys/bus/pci/devices/{GPU}/device": {"0x2335": "0x2bb5"},
        f"/sys/bus/pci/devices/{GPU}/subsystem_device": {"0x18bf": "0x204e"},
        f"/proc/driver/nvidia/gpus/{GPU}/information": {"Model: \t\t NVIDIA H200": "Model: \t\t " + RTX_PRO_NAME},
        "/dev/kmsg": {
            "6,220,153133,-;pci 0000:00:06.0: [10de:2335] type 00 class 0x030200 PCIe Endpoint":
                "6,220,153133,-;pci 0000:00:06.0: [10de:2bb5] type 00 class 0x030200 PCIe Endpoint",
            # GA100/GH100 memory-controller code: not printed for a GB202.
            "4,356,1250651,c;NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt detected. Clearing it.": None,
        },
    },
    "helper_reply": {
        "user-env": {
            "cuda.device.0.name": RTX_PRO_NAME,
            "cuda.device.0.cc_major": "12",
            "cuda.device.0.cc_minor": "0",
            "cuda.device.0.total_memory_bytes": str(97887 * 1024 * 1024),
            "nvml.device.0.name": RTX_PRO_NAME,
        }
    },
}
ABOUT_RTX_PRO = ("The real H200 container with its GPU replaced by an RTX PRO 6000 Blackwell Server Edition (PCI "
                 "10de:2bb5, subsystem 10de:204e, gpu_table.cpp; compute capability 12.0 and 97,887 MiB in the CUDA "
                 "helper's reply; the same name in /proc/driver/nvidia and NVML; driver 580.159.04 supports it from "
                 "575.51.02)")

# ---------------------------------------------------------------- toolkits and CUDA runtime folders

CUDA_13_H = "/usr/local/cuda-13.0/include/cuda.h"
HOST_CONFIG_13 = "/usr/local/cuda-13.0/targets/x86_64-linux/include/crt/host_config.h"


def toolkit_128():
    """/usr/local/cuda-12.8 beside 13.0, laid out like the image's 13.0 (no version.json; nvcc,
    cuda.h, targets/x86_64-linux/include/crt/host_config.h). cuda.h and host_config.h are the 13.0
    files with CUDA 12.8's values: CUDA_VERSION 12080, GCC up to 14. Of cuda.h only the head the
    probe looks at is kept: its first 64 KiB hold 954 lines, the define is line 263."""
    root = "/usr/local/cuda-12.8"
    head = copy.deepcopy(PATHS[CUDA_13_H])
    for r in head["ranges"]:
        end = r["lines"].index("#define CUDA_VERSION 13000")
        r["lines"] = r["lines"][:end] + ["#define CUDA_VERSION 12080", ""]
    config = [l.replace("__GNUC__ > 15", "__GNUC__ > 14").replace("later than 15", "later than 14")
              for l in base_lines(HOST_CONFIG_13)]
    return {
        "paths": {
            "/usr/local": merge(PATHS["/usr/local"], {"list": sorted(PATHS["/usr/local"]["list"] + ["cuda-12.8"])}),
            root: PATHS["/usr/local/cuda-13.0"],
            root + "/bin": PATHS["/usr/local/cuda-13.0/bin"],
            root + "/bin/nvcc": PATHS["/usr/local/cuda-13.0/bin/nvcc"],
            root + "/include/cuda.h": head,
            root + "/targets/x86_64-linux/include/crt/host_config.h": read(config),
        }
    }


ABOUT_128 = ("a CUDA 12.8 toolkit is installed beside the image's 13.0 (apt install cuda-toolkit-12-8: "
             "/usr/local/cuda-12.8 with bin/nvcc, laid out as the image's 13.0; the head of its cuda.h says "
             "CUDA_VERSION 12080 and its crt/host_config.h accepts GCC up to 14)")


def runtime_folder(root, versions):
    """A CUDA runtime library folder <root>/lib64 (a link to targets/x86_64-linux/lib, as the
    cuda-libraries-X-Y packages install it) with the libraries the nvidia-* wheels also ship,
    named as the toolkit names them: libX.so -> libX.so.MAJOR -> libX.so.FULL."""
    lib = root + "/targets/x86_64-linux/lib"
    names, paths = [], {}
    for stem, version in versions:
        major = version.split(".")[0]
        names += [f"{stem}.so", f"{stem}.so.{major}", f"{stem}.so.{version}"]
        paths[f"{lib}/{stem}.so.{major}"] = {"link": f"{stem}.so.{version}",
                                             "lstat": {"gid": 0, "mode": "0777", "type": "symlink", "uid": 0}}
        real = {"gid": 0, "mode": "0644", "type": "file", "uid": 0}
        paths[f"{lib}/{stem}.so.{version}"] = {"lstat": real, "stat": real}
    paths[root] = {"lstat": {"gid": 0, "mode": "0755", "type": "dir", "uid": 0}}
    paths[root + "/lib64"] = {"link": "targets/x86_64-linux/lib", "list": sorted(names),
                              "lstat": {"gid": 0, "mode": "0777", "type": "symlink", "uid": 0}}
    paths[root + "/targets"] = {"lstat": {"gid": 0, "mode": "0755", "type": "dir", "uid": 0}}
    paths[root + "/targets/x86_64-linux"] = {"lstat": {"gid": 0, "mode": "0755", "type": "dir", "uid": 0}}
    paths[lib] = {"list": sorted(names), "lstat": {"gid": 0, "mode": "0755", "type": "dir", "uid": 0}}
    name = root.rsplit("/", 1)[1]
    paths["/usr/local"] = merge(PATHS["/usr/local"], {"list": sorted(PATHS["/usr/local"]["list"] + [name])})
    return paths


# CUDA 12.1.1's library versions (torch 2.2.2's cu121 pins, tests/fixtures/python) and CUDA
# 12.4.1's (torch 2.6.0's cu124 pins); nvJitLink has the CUDA version as cudart does.
RUNTIME_121 = [("libcublas", "12.1.3.1"), ("libcublasLt", "12.1.3.1"), ("libcudart", "12.1.105"),
               ("libcufft", "11.0.2.54"), ("libcurand", "10.3.2.106"), ("libcusolver", "11.4.5.107"),
               ("libcusparse", "12.1.0.106"), ("libnvJitLink", "12.1.105"), ("libnvrtc", "12.1.105")]
RUNTIME_124 = [("libcublas", "12.4.5.8"), ("libcublasLt", "12.4.5.8"), ("libcudart", "12.4.127"),
               ("libcufft", "11.2.1.3"), ("libcurand", "10.3.5.147"), ("libcusolver", "11.6.1.9"),
               ("libcusparse", "12.3.1.170"), ("libnvJitLink", "12.4.127"), ("libnvrtc", "12.4.127")]
LD_PATH_BASE = BASE["env"]["LD_LIBRARY_PATH"]


# ---------------------------------------------------------------- the cases

def case(about, *parts):
    host = {"about": about, "base": BASE_NAME}
    body = merge(*parts)
    for key in ("env", "identity", "uname", "paths", "replace_lines", "append_lines", "options", "helper_runs",
                "helper_reply"):
        if key in body:
            host[key] = body[key]
    if "paths" in host:
        host["paths"] = dict(sorted(host["paths"].items()))
    return host


CASES = {}


def add(rule, name, host):
    CASES[(rule, name)] = host


# ml.torch-no-kernel-for-gpu -------------------------------------------------
add("ml.torch-no-kernel-for-gpu", "positive-rtx-pro-6000-torch-2.6-cu124", case(
    ABOUT_RTX_PRO + "; " + ABOUT_CU124 + "; " + ABOUT_LIB26 + ". None of those runs on compute capability 12.0, so "
    "every kernel launch fails with \"no kernel image is available\"; driver 580 supports CUDA 13, so the fix names "
    "https://download.pytorch.org/whl/cu130.",
    RTX_PRO_6000, VENV_CU124))
add("ml.torch-no-kernel-for-gpu", "negative-rtx-pro-6000-torch-2.11-cu128", case(
    ABOUT_RTX_PRO + "; torch is 2.11.0+cu128 (version.py '2.11.0+cu128', CUDA 12.8). Only version.py differs from the "
    "real cu130 venv: its libtorch_cuda.so is the real one, whose SASS covers sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 "
    "(in all 444 fat binaries, beside sm_89, sm_90a, sm_100a, sm_103a, sm_120a and sm_121a in 1 to 59 of them), as the "
    "cu128 build's list does (7.5;8.0;8.6;9.0;10.0;12.0, pytorch PR #175253): the GPU has kernels in every fat binary.",
    RTX_PRO_6000, {"replace_lines": {TORCH + "/version.py": {
        "__version__ = '2.11.0+cu130'": "__version__ = '2.11.0+cu128'",
        "cuda: Optional[str] = '13.0'": "cuda: Optional[str] = '12.8'"}}}))
add("ml.torch-no-kernel-for-gpu", "negative-h200-torch-2.6-cu124", case(
    "The real H200 container where " + ABOUT_CU124 + "; " + ABOUT_LIB26 + ". The same torch as on the RTX PRO 6000 "
    "host, but the H200 is compute capability 9.0 and sm_90 is in the list.",
    VENV_CU124))

# The union of architectures is not enough: 9 fat binaries of a synthetic libtorch_cuda.so carry
# sm_75 sm_80 sm_86 sm_90 sm_100, one also sm_120a, which runs on compute capability 12.0 only.
LIBTORCH_FEW_120A = cuda_library_stand_in([[75, 80, 86, 90, 100]] * 9 + [[75, 80, 86, 90, 100, "120a"]])
add("ml.torch-no-kernel-for-gpu", "positive-rtx-pro-6000-sm120a-in-one-fat-binary", case(
    ABOUT_RTX_PRO + "; torch is 2.11.0+cu130 whose torch/lib/libtorch_cuda.so is a small synthetic ELF stand-in: ten "
    "fat binaries (one per translation unit) with cubins for sm_75 sm_80 sm_86 sm_90 sm_100, one of which also holds "
    "an sm_120a cubin, the way the real cu130 library adds sm_120a to 1 of its 444. sm_120a runs on compute capability "
    "12.0, so the union of architectures would call the GPU covered, but the kernels of the other nine fat binaries "
    "have no code for it and fail with \"no kernel image is available\".",
    RTX_PRO_6000, {"paths": {LIBTORCH: {
        "read": {"base64": base64.b64encode(LIBTORCH_FEW_120A).decode()},
        "stat": {"gid": 0, "mode": "0755", "size": len(LIBTORCH_FEW_120A), "type": "file", "uid": 0}}}}))

# ml.extension-no-kernel-for-gpu ----------------------------------------------
FLASH_SO = SITE + "/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so"
FLASH_80_90 = libtorch_stand_in([80, 90], containers=2)
FLASH_ENTRY = {
    "read": {"base64": base64.b64encode(FLASH_80_90).decode()},
    "stat": {"gid": 0, "mode": "0755", "size": len(FLASH_80_90), "type": "file", "uid": 0},
}
ABOUT_FLASH = ("gpudoctor ran with --extension " + FLASH_SO + ", a flash-attn 2 extension built for sm_80 and sm_90 "
               "only (a synthetic stand-in: two fat binaries with cubins for those two architectures, no PTX), as "
               "its setup.py builds by default for Ampere and Hopper")
add("ml.extension-no-kernel-for-gpu", "positive-flash-attn-on-rtx-pro-6000", case(
    ABOUT_RTX_PRO + "; " + ABOUT_FLASH + ". Compute capability 12.0 can run neither, so the extension's first launch "
    "fails with \"no kernel image is available\".",
    RTX_PRO_6000, {"paths": {FLASH_SO: FLASH_ENTRY}, "options": {"python": "", "extensions": [FLASH_SO]}}))
# An extension built with TORCH_CUDA_ARCH_LIST=8.0 (for an A100) whose Hopper-only sources are
# compiled for sm_90a alone: three fat binaries with sm_80 cubins, one with an sm_90a cubin.
XFORMERS_SO = SITE + "/xformers/_C.so"
XFORMERS_80 = cuda_library_stand_in([[80], [80], [80], ["90a"]])
add("ml.extension-no-kernel-for-gpu", "positive-sm80-extension-with-sm90a-files-on-h200", case(
    "The real H200 container; gpudoctor ran with --extension " + XFORMERS_SO + ", a synthetic stand-in for an "
    "extension built with TORCH_CUDA_ARCH_LIST=8.0 for an A100 whose Hopper-only sources are compiled for sm_90a "
    "alone (xformers' FlashAttention 3 files are): three fat binaries with sm_80 cubins and one with an sm_90a cubin, "
    "no PTX. sm_90a runs on the H200 (compute capability 9.0), sm_80 code never across majors: the kernels of three "
    "fat binaries of four have no code for the GPU.",
    {"paths": {XFORMERS_SO: {
        "read": {"base64": base64.b64encode(XFORMERS_80).decode()},
        "stat": {"gid": 0, "mode": "0755", "size": len(XFORMERS_80), "type": "file", "uid": 0}}},
     "options": {"python": "", "extensions": [XFORMERS_SO]}}))
add("ml.extension-no-kernel-for-gpu", "negative-flash-attn-on-h200", case(
    "The real H200 container; " + ABOUT_FLASH + ". The H200 is compute capability 9.0: sm_90 runs.",
    {"paths": {FLASH_SO: FLASH_ENTRY}, "options": {"python": "", "extensions": [FLASH_SO]}}))

# ml.torch-cpu-only ----------------------------------------------------------
add("ml.torch-cpu-only", "positive-cpu-wheel-on-h200", case(
    "The real H200 container where " + ABOUT_CPU + ". torch.cuda.is_available() is False on a healthy GPU.",
    VENV_CPU))
add("ml.torch-cpu-only", "negative-cpu-wheel-in-user-site-isolated-venv", case(
    "The real H200 container, with a CPU build of torch (2.11.0+cpu) in root's user site (pip install --user "
    "--break-system-packages torch --index-url https://download.pytorch.org/whl/cpu, run with the system python). python3 on PATH is the venv, "
    "created without system site packages, so site.py leaves the user site out and it imports the venv's CUDA build "
    "2.11.0+cu130.",
    {"paths": {
        USER_SITE: {"list": ["torch", "torch-2.11.0+cpu.dist-info", "torchgen"]},
        USER_SITE + "/torch/__init__.py": {"stat": {"gid": 0, "mode": "0644", "size": 107845, "type": "file", "uid": 0}},
        USER_SITE + "/torch/version.py": read([l.replace("'2.11.0+cu130'", "'2.11.0+cpu'").replace("'13.0'", "None")
                                               for l in base_lines(TORCH + "/version.py")]),
        USER_SITE + "/torch-2.11.0+cpu.dist-info/METADATA": read(cpu_metadata()),
    }}))

# ml.torch-installed-twice -----------------------------------------------------
SYSTEM_TORCH_26 = {
    "paths": {
        SYS_SITE: {"list": sorted(["torch", "torchgen", "functorch", "torch-2.6.0.dist-info", "triton",
                                    "triton-3.2.0.dist-info", "nvidia"] + [dist_info(n, v) for n, v in CU124_PINS])},
        SYS_SITE + "/torch/__init__.py": {"stat": {"gid": 0, "mode": "0644", "type": "file", "uid": 0}},
        SYS_SITE + "/torch/version.py": read(lines(torch_version_py("2.6.0+cu124", "12.4"))),
        SYS_SITE + "/torch-2.6.0.dist-info/METADATA": read(lines(TORCH_26_METADATA + "\n")),
    }
}
ABOUT_SYSTEM_TORCH = ("torch 2.6.0 (CUDA 12.4) with its nvidia-*-cu12 wheels and triton 3.2.0 installed into the system "
                      "Python (sudo pip install --break-system-packages torch==2.6.0, into " + SYS_SITE + ")")
add("ml.torch-installed-twice", "positive-venv-with-system-site-packages", case(
    "The real H200 container where " + ABOUT_SYSTEM_TORCH + ", and the venv's pyvenv.cfg says "
    "include-system-site-packages = true: python3 sees the venv's torch 2.11.0+cu130 first and the system's 2.6.0 "
    "behind it.",
    SYSTEM_TORCH_26, {"replace_lines": {VENV + "/pyvenv.cfg": {
        "include-system-site-packages = false": "include-system-site-packages = true"}}}))
add("ml.torch-installed-twice", "negative-isolated-venv-beside-system-torch", case(
    "The real H200 container where " + ABOUT_SYSTEM_TORCH + ". The venv was created without system site packages "
    "(include-system-site-packages = false), so python3 sees only the venv's torch 2.11.0+cu130.",
    SYSTEM_TORCH_26))

# ml.nvidia-wheels-mixed-families ----------------------------------------------
CU124_WHEELS = [dist_info(n, v) for n, v in CU124_PINS]
add("ml.nvidia-wheels-mixed-families", "positive-cu12-wheels-left-after-upgrade", case(
    "The real H200 venv after pip install -U torch from torch 2.6.0 (CUDA 12.4) to 2.11.0 (CUDA 13.0): pip replaced "
    "torch and triton but left the thirteen nvidia-*-cu12 wheels 2.6.0 had pinned (nothing requires them any more), "
    "beside the CUDA 13 wheels of 2.11.0.",
    {"paths": {SITE: site_listing(add=CU124_WHEELS)}}))
add("ml.nvidia-wheels-mixed-families", "negative-cu12-cudnn-left-as-pip-stash", case(
    "The real H200 venv after the cu12 leftovers were uninstalled (pip uninstall nvidia-cublas-cu12 ...), the run "
    "interrupted while it removed nvidia-cudnn-cu12: its dist-info is left as pip's stash folder "
    "~vidia_cudnn_cu12-9.1.0.70.dist-info, which is no distribution (pip warns \"Ignoring invalid distribution "
    "~vidia-cudnn-cu12\"). Only the CUDA 13 family is installed.",
    {"paths": {SITE: site_listing(add=["~vidia_cudnn_cu12-9.1.0.70.dist-info"])}}))

# ml.ld-library-path-shadows-wheels --------------------------------------------
add("ml.ld-library-path-shadows-wheels", "positive-cuda-12.1-ahead-of-cu124-wheels", case(
    "The real H200 container where " + ABOUT_CU124 + "; CUDA 12.1's runtime libraries are installed "
    "(/usr/local/cuda-12.1, cuda-libraries-12-1) and LD_LIBRARY_PATH puts /usr/local/cuda-12.1/lib64 first, so "
    "libnvJitLink.so.12 12.1.105, libcusparse.so.12 12.1.0.106, libcublas.so.12 12.1.3.1 ... load instead of the "
    "12.4 wheels' (\"undefined symbol: __nvJitLinkComplete_12_4\", pytorch#134929, ragflow#4466). " + ABOUT_LIB26 + ".",
    VENV_CU124, {"paths": runtime_folder("/usr/local/cuda-12.1", RUNTIME_121),
                 "env": {"LD_LIBRARY_PATH": "/usr/local/cuda-12.1/lib64:" + LD_PATH_BASE}}))
add("ml.ld-library-path-shadows-wheels", "negative-cuda-12.4-same-as-cu124-wheels", case(
    "The real H200 container where " + ABOUT_CU124 + "; CUDA 12.4.1's runtime libraries are installed "
    "(/usr/local/cuda-12.4) and LD_LIBRARY_PATH puts /usr/local/cuda-12.4/lib64 first. They come first, but they are "
    "the versions the wheels hold (cuBLAS 12.4.5.8, cuSPARSE 12.3.1.170, nvJitLink 12.4.127, ...). " + ABOUT_LIB26 + ".",
    VENV_CU124, {"paths": runtime_folder("/usr/local/cuda-12.4", RUNTIME_124),
                 "env": {"LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64:" + LD_PATH_BASE}}))

# ml.torch-requirements-unmet --------------------------------------------------
add("ml.torch-requirements-unmet", "positive-cudnn-cu13-downgraded", case(
    "The real H200 venv after pip install nvidia-cudnn-cu13==9.13.0.50 (a requirements file written for torch "
    "2.9.0+cu130): torch 2.11.0's METADATA pins nvidia-cudnn-cu13==9.19.0.56.",
    {"paths": {SITE: site_listing(["nvidia_cudnn_cu13-9.19.0.56.dist-info"], ["nvidia_cudnn_cu13-9.13.0.50.dist-info"])}}))
add("ml.torch-requirements-unmet", "negative-cudnn-cu12-beside-pinned-cu13", case(
    "The real H200 venv with nvidia-cudnn-cu12 9.10.2.21 left from an earlier torch 2.8.0+cu128 beside the "
    "nvidia-cudnn-cu13 9.19.0.56 that torch 2.11.0 pins: another distribution, so every pin of torch is met.",
    {"paths": {SITE: site_listing(add=["nvidia_cudnn_cu12-9.10.2.21.dist-info"])}}))

# ml.triton-version-mismatch ---------------------------------------------------
add("ml.triton-version-mismatch", "positive-triton-3.5.1-with-torch-2.11", case(
    "The real H200 venv after pip install triton==3.5.1 (the triton of torch 2.9): torch 2.11.0's METADATA pins "
    "triton==3.6.0.",
    {"paths": {SITE: site_listing(["triton-3.6.0.dist-info"], ["triton-3.5.1.dist-info"])}}))
add("ml.triton-version-mismatch", "negative-triton-3.5.1-with-cpu-torch", case(
    "The real H200 container where " + ABOUT_CPU + "; triton is 3.5.1 (pip install triton==3.5.1). The CPU build "
    "pins no triton, so no version is required of it.",
    VENV_CPU, {"paths": {SITE: site_listing(["torch-2.11.0.dist-info", "triton-3.6.0.dist-info"],
                                            ["torch-2.11.0+cpu.dist-info", "triton-3.5.1.dist-info"])}}))

# ml.extension-built-for-other-torch -------------------------------------------
FLASH_ATTN = ["flash_attn", "flash_attn-2.8.3.dist-info", "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so"]
FLASH_ATTN_METADATA = [
    "Metadata-Version: 2.1", "Name: flash_attn", "Version: 2.8.3",
    "Summary: Flash Attention: Fast and Memory-Efficient Exact Attention",
    "Home-page: https://github.com/Dao-AILab/flash-attention", "Author: Tri Dao", "Author-email: tri@tridao.me",
    "Classifier: Programming Language :: Python :: 3", "Classifier: License :: OSI Approved :: BSD License",
    "Classifier: Operating System :: Unix", "Requires-Python: >=3.9", "Description-Content-Type: text/markdown",
    "License-File: LICENSE", "License-File: AUTHORS", "Requires-Dist: torch", "Requires-Dist: einops", "", ""]
FLASH_WHEEL = ("https://github.com/Dao-AILab/flash-attention/releases/download/v2.8.3/"
               "flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp312-cp312-linux_x86_64.whl")
add("ml.extension-built-for-other-torch", "positive-flash-attn-wheel-for-torch-2.8", case(
    "The real H200 venv with flash-attn 2.8.3 installed from its release wheel for torch 2.8 (pip install " + FLASH_WHEEL +
    "): the wheel's name says cu12torch2.8, its direct_url.json records the URL (the dist-info is "
    "flash_attn-2.8.3: the release workflow renames the wheel file only), and torch is 2.11.0, so importing "
    "flash_attn_2_cuda fails with undefined symbols.",
    {"paths": {
        SITE: site_listing(add=FLASH_ATTN),
        SITE + "/flash_attn-2.8.3.dist-info/METADATA": read(FLASH_ATTN_METADATA),
        SITE + "/flash_attn-2.8.3.dist-info/direct_url.json": read([json.dumps(
            {"archive_info": {}, "url": FLASH_WHEEL}, sort_keys=True)]),
    }}))
add("ml.extension-built-for-other-torch", "negative-flash-attn-built-here", case(
    "The real H200 venv with flash-attn 2.8.3 built here from the PyPI sdist against the installed torch (pip install "
    "flash-attn --no-build-isolation): no direct_url.json (pip writes one only for URL installs), and its METADATA "
    "requires torch without a version.",
    {"paths": {
        SITE: site_listing(add=FLASH_ATTN),
        SITE + "/flash_attn-2.8.3.dist-info/METADATA": read(FLASH_ATTN_METADATA),
        SITE + "/flash_attn-2.8.3.dist-info/direct_url.json": {"read": {"error": "ENOENT"}},
    }}))

# ml.framework-cuda-above-driver, ml.torch-cuda-above-driver ---------------------
JAX_CUPY_CUDA12 = ["cupy", "cupy_backends", "cupy_cuda12x-14.2.0.dist-info", "cupyx", "jax_cuda12_pjrt-0.11.2.dist-info",
                   "jax_cuda12_plugin", "jax_cuda12_plugin-0.11.2.dist-info"]
add("ml.framework-cuda-above-driver", "positive-jax-cupy-cuda13-on-570", case(
    ABOUT_570 + ". The venv is the real one: jax-cuda13-plugin 0.11.2 and cupy-cuda13x 14.2.0 need a CUDA 13 driver "
    "(580+); torch 2.11.0+cu130 too (ml.torch-cuda-above-driver).",
    DRIVER_570))
add("ml.framework-cuda-above-driver", "negative-jax-cupy-cuda12-on-570", case(
    ABOUT_570 + ". In the venv jax's and cupy's CUDA 12 builds (jax-cuda12-plugin 0.11.2, cupy-cuda12x 14.2.0) replace "
    "the CUDA 13 ones: they run on the 570 driver (torch 2.11.0+cu130 still does not).",
    DRIVER_570, {"paths": {SITE: site_listing(JAX_CUPY_CUDA13, JAX_CUPY_CUDA12)}}))
add("ml.torch-cuda-above-driver", "positive-torch-cu130-on-570", case(
    ABOUT_570 + ". The venv is the real one: torch 2.11.0+cu130 needs a CUDA 13 driver (580+), so "
    "torch.cuda.is_available() is False with error 35.",
    DRIVER_570))
add("ml.torch-cuda-above-driver", "negative-torch-cu126-on-570", case(
    ABOUT_570 + "; " + ABOUT_CU126 + "; " + ABOUT_LIB26 + ". CUDA 12.6 runs on a CUDA 12.8 driver.",
    DRIVER_570, VENV_CU126))

# ml.torch-cuda-minor-above-driver ---------------------------------------------
add("ml.torch-cuda-minor-above-driver", "positive-torch-cu126-on-550", case(
    ABOUT_550 + "; " + ABOUT_CU126 + "; " + ABOUT_LIB26 + ". CUDA 12.6 on a CUDA 12.4 driver: its SASS runs (minor "
    "version compatibility), PTX compiled by the newer toolchain does not.",
    DRIVER_550, VENV_CU126))
add("ml.torch-cuda-minor-above-driver", "negative-torch-cu124-on-550", case(
    ABOUT_550 + "; " + ABOUT_CU124 + "; " + ABOUT_LIB26 + ". The build's CUDA 12.4 is the driver's.",
    DRIVER_550, VENV_CU124))

# toolkit.newer-than-driver ----------------------------------------------------
add("toolkit.newer-than-driver", "positive-cuda-13.0-on-570", case(
    ABOUT_570 + "; " + ABOUT_CU126 + "; " + ABOUT_LIB26 + ". Extension builds use the image's CUDA 13.0 "
    "(CUDA_HOME=/usr/local/cuda), whose output needs a CUDA 13 driver.",
    DRIVER_570, VENV_CU126))
add("toolkit.newer-than-driver", "negative-cuda-12.8-on-570", case(
    ABOUT_570 + "; " + ABOUT_CU126 + "; " + ABOUT_LIB26 + "; " + ABOUT_128 + " and CUDA_HOME points at it. CUDA "
    "12.8 is what the 570 driver supports.",
    DRIVER_570, VENV_CU126, toolkit_128(), {"env": {"CUDA_HOME": "/usr/local/cuda-12.8"}}))

# toolkit.nvcc-major-differs-from-torch, toolkit.nvcc-minor-differs-from-torch ----
add("toolkit.nvcc-major-differs-from-torch", "positive-nvcc-12.8-torch-cu130", case(
    "The real H200 container where " + ABOUT_128 + " and CUDA_HOME points at it, while torch is 2.11.0+cu130: "
    "torch.utils.cpp_extension refuses to build (\"The detected CUDA version (12.8) mismatches the version that was "
    "used to compile PyTorch (13.0)\").",
    toolkit_128(), {"env": {"CUDA_HOME": "/usr/local/cuda-12.8"}}))
add("toolkit.nvcc-major-differs-from-torch", "negative-nvcc-12.8-torch-cu126", case(
    "The real H200 container where " + ABOUT_CU126 + "; " + ABOUT_LIB26 + "; " + ABOUT_128 + " and CUDA_HOME points "
    "at it. 12.8 and 12.6 share the major version: cpp_extension only warns.",
    VENV_CU126, toolkit_128(), {"env": {"CUDA_HOME": "/usr/local/cuda-12.8"}}))
add("toolkit.nvcc-minor-differs-from-torch", "positive-nvcc-12.8-torch-cu126", case(
    "The real H200 container where " + ABOUT_CU126 + "; " + ABOUT_LIB26 + "; " + ABOUT_128 + " and CUDA_HOME points "
    "at it: 12.8 against torch's 12.6, the same major version.",
    VENV_CU126, toolkit_128(), {"env": {"CUDA_HOME": "/usr/local/cuda-12.8"}}))
add("toolkit.nvcc-minor-differs-from-torch", "negative-nvcc-12.8-torch-cu130", case(
    "The real H200 container where " + ABOUT_128 + " and CUDA_HOME points at it, while torch is 2.11.0+cu130: the "
    "major versions differ (toolkit.nvcc-major-differs-from-torch), not only the minor.",
    toolkit_128(), {"env": {"CUDA_HOME": "/usr/local/cuda-12.8"}}))

# toolkit.host-compiler-unsupported ----------------------------------------------
add("toolkit.host-compiler-unsupported", "positive-gcc-16-cuda-13.0", case(
    "The real H200 container where the compiler CC names (/opt/gcc/bin/gcc, a wrapper of the GCC in /opt/gcc) is "
    "GCC 16 (/opt/gcc/lib/gcc/x86_64-linux-gnu/16): CUDA 13.0's crt/host_config.h stops at \"#if __GNUC__ > 15\" "
    "with \"unsupported GNU version!\".",
    {"paths": {"/opt/gcc/lib/gcc/x86_64-linux-gnu": {"list": ["16"]}}}))
add("toolkit.host-compiler-unsupported", "negative-gcc-15-cuda-13.0", case(
    "The real H200 container where the compiler CC names (/opt/gcc/bin/gcc) is GCC 15 "
    "(/opt/gcc/lib/gcc/x86_64-linux-gnu/15): the newest GCC CUDA 13.0's crt/host_config.h accepts.",
    {"paths": {"/opt/gcc/lib/gcc/x86_64-linux-gnu": {"list": ["15"]}}}))

# toolkit.nvcc-missing -----------------------------------------------------------


def no_toolkit():
    """The image without the CUDA toolkit: no /usr/local/cuda*, its alternatives and ld.so.conf.d
    files, no CUDA_HOME, and no /usr/local/cuda/bin on PATH."""
    paths = {p: None for p in PATHS if p.startswith("/usr/local/cuda") or p.startswith("/etc/alternatives/cuda")}
    paths["/usr/local"] = merge(PATHS["/usr/local"], {"list": [n for n in PATHS["/usr/local"]["list"]
                                                               if not n.startswith("cuda")]})
    conf = "/etc/ld.so.conf.d"
    gone = ["000_cuda.conf", "987_cuda-13.conf", "gds-13-0.conf", "nvidia.conf"]
    paths[conf] = {"list": [n for n in PATHS[conf]["list"] if n not in gone]}
    for name in gone:
        paths[conf + "/" + name] = None
    path = BASE["env"]["PATH"].replace(":/usr/local/cuda/bin", "")
    return {"paths": paths, "env": {"CUDA_HOME": None, "CUDA_VERSION": None, "NVIDIA_REQUIRE_CUDA": None, "PATH": path}}


add("toolkit.nvcc-missing", "positive-flash-attn-build-without-toolkit", case(
    "The real H200 container built from an image without the CUDA toolkit (no /usr/local/cuda*, its ld.so.conf.d "
    "files and alternatives, no CUDA_HOME, CUDA_VERSION or NVIDIA_REQUIRE_CUDA, nothing CUDA on PATH); the venv is the "
    "real one. pip install flash-attn, when no prebuilt wheel matches, fails with \"CUDA_HOME environment variable is "
    "not set\".",
    no_toolkit()))
NVCC_WHEEL = SITE + "/nvidia/cu13"
add("toolkit.nvcc-missing", "negative-nvcc-from-pip-wheel", case(
    "The same image without the CUDA toolkit, but nvcc came from pip (pip install nvidia-cuda-nvcc nvidia-cuda-crt: "
    "13.0.88, the CUDA 13 wheels' shared prefix site-packages/nvidia/cu13) and CUDA_HOME points at that prefix, so "
    "torch.utils.cpp_extension finds nvcc.",
    no_toolkit(), {
        "env": {"CUDA_HOME": NVCC_WHEEL},
        "paths": {
            SITE: site_listing(add=["nvidia_cuda_nvcc-13.0.88.dist-info", "nvidia_cuda_crt-13.0.88.dist-info"]),
            NVCC_WHEEL + "/bin/nvcc": {"stat": PATHS["/usr/local/cuda-13.0/bin/nvcc"]["stat"]},
            NVCC_WHEEL + "/include/crt/host_config.h": PATHS[HOST_CONFIG_13],
        }}))


# nccl.* (issue 26): the venv's nvidia-nccl-cu13 wheel with its library and METADATA, the
# container's network interfaces and routes, and NCCL's variables ------------------------
NCCL_LIB = SITE + "/nvidia/nccl/lib/libnccl.so.2"
NCCL_REAL_VERSION = "2.28.9"  # the real venv's nvidia_nccl_cu13-2.28.9.dist-info


def nccl_wheel(version=NCCL_REAL_VERSION):
    """The wheel's library (a regular file of the real wheel's size) and its METADATA; another
    version renames its dist-info folder in the site-packages listing."""
    file_stat = {"type": "file", "mode": "0755", "uid": 0, "gid": 0, "size": 277514416}
    info = f"{SITE}/nvidia_nccl_cu13-{version}.dist-info"
    metadata = ("Metadata-Version: 2.1\nName: nvidia-nccl-cu13\nVersion: " + version + "\n"
                "Summary: NVIDIA Collective Communication Library (NCCL) Runtime\n"
                "Home-page: https://developer.nvidia.com/cuda-zone\nRequires-Python: >=3\n\n"
                "NCCL (pronounced \"Nickel\") is a stand-alone library of standard collective communication routines.\n")
    paths = {NCCL_LIB: {"stat": file_stat, "lstat": file_stat}, info + "/METADATA": read(lines(metadata))}
    if version != NCCL_REAL_VERSION:
        paths[SITE] = site_listing(remove=[f"nvidia_nccl_cu13-{NCCL_REAL_VERSION}.dist-info"],
                                   add=[f"nvidia_nccl_cu13-{version}.dist-info"])
    return {"paths": paths}


# eth0 (up) and lo (operstate unknown, IFF_UP) as a container's /sys/class/net shows them, and its
# one link route (net/ipv4/fib_trie.c fib_route_seq_show: padded to 127 characters).
def route_line(fields):
    return fields.ljust(127)


NCCL_NET = {"paths": {
    "/sys/class/net": {"list": ["eth0", "lo"]},
    "/sys/class/net/eth0/operstate": read(["up", ""]),
    "/sys/class/net/lo/operstate": read(["unknown", ""]),
    "/sys/class/net/lo/flags": read(["0x9", ""]),
    "/proc/net/route": read([
        route_line("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"),
        route_line("eth0\t00000000\t010011AC\t0003\t0\t0\t0\t00000000\t0\t0\t0"),
        route_line("eth0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0"),
        ""]),
}}
ABOUT_NCCL = ("The real H200 container whose venv has torch 2.11.0+cu130 and its nvidia-nccl-cu13 " + NCCL_REAL_VERSION +
              " wheel (the library in nvidia/nccl/lib, the wheel's METADATA), with eth0 up and lo")
NCCL_HCAS = {"paths": {"/sys/class/infiniband": {"list": ["mlx5_0", "mlx5_1"]}}}

# eth1 up beside eth0, with its own link route to eth0's subnet (NVIDIA/nccl#1581's table).
NCCL_NET_TWO_NICS = merge(NCCL_NET, {"paths": {
    "/sys/class/net": {"list": ["eth0", "eth1", "lo"]},
    "/sys/class/net/eth1/operstate": read(["up", ""]),
    "/proc/net/route": read(NCCL_NET["paths"]["/proc/net/route"]["read"]["lines"][:-1] + [
        route_line("eth1\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0"), ""]),
}})

add("nccl.duplicate-routes", "positive-eth0-eth1-same-subnet", case(
    ABOUT_NCCL + ", and eth1 up with a link route to eth0's subnet 172.17.0.0/16: connections to that subnet may "
    "leave through either (NVIDIA/nccl#1581).",
    nccl_wheel(), NCCL_NET_TWO_NICS))
add("nccl.duplicate-routes", "negative-one-route-per-subnet", case(
    ABOUT_NCCL + ": one link route, through eth0, and the default route.",
    nccl_wheel(), NCCL_NET))
add("nccl.socket-ifname-not-found", "positive-eth2-on-a-node-with-eth0", case(
    ABOUT_NCCL + "; NCCL_SOCKET_IFNAME==eth2, copied from a node whose NIC is eth2: NCCL finds no interface "
    "and fails at its first connection (NVIDIA/nccl#1837).",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_SOCKET_IFNAME": "=eth2"}}))
add("nccl.socket-ifname-not-found", "negative-eth0-up", case(
    ABOUT_NCCL + "; NCCL_SOCKET_IFNAME==eth0 names the interface that is up.",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_SOCKET_IFNAME": "=eth0"}}))
add("nccl.ib-hca-not-found", "positive-mlx5-4-on-a-node-with-two-hcas", case(
    ABOUT_NCCL + " and two HCAs (mlx5_0, mlx5_1); NCCL_IB_HCA==mlx5_4:1 names a device this node lacks.",
    nccl_wheel(), NCCL_NET, NCCL_HCAS, {"env": {"NCCL_IB_HCA": "=mlx5_4:1"}}))
add("nccl.ib-hca-not-found", "negative-mlx5-prefix", case(
    ABOUT_NCCL + " and two HCAs (mlx5_0, mlx5_1); NCCL_IB_HCA=mlx5 selects both.",
    nccl_wheel(), NCCL_NET, NCCL_HCAS, {"env": {"NCCL_IB_HCA": "mlx5"}}))
add("nccl.transport-disabled", "positive-p2p-disabled", case(
    ABOUT_NCCL + "; NCCL_P2P_DISABLE=1 left set by a job script.",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_P2P_DISABLE": "1"}}))
add("nccl.transport-disabled", "negative-p2p-disable-0", case(
    ABOUT_NCCL + "; NCCL_P2P_DISABLE=0, which NCCL reads as not disabled.",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_P2P_DISABLE": "0"}}))
add("nccl.topo-file-missing", "positive-topo-file-not-in-image", case(
    ABOUT_NCCL + "; NCCL_TOPO_FILE=/etc/nccl/topo.xml, which this image lacks.",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_TOPO_FILE": "/etc/nccl/topo.xml"}}))
add("nccl.topo-file-missing", "negative-topo-file-present", case(
    ABOUT_NCCL + "; NCCL_TOPO_FILE=/etc/nccl/topo.xml, a readable file.",
    nccl_wheel(), NCCL_NET, {"env": {"NCCL_TOPO_FILE": "/etc/nccl/topo.xml"},
                             "paths": {"/etc/nccl/topo.xml": read(['<system version="1">', "</system>", ""])}}))
add("nccl.too-old-for-gpu", "positive-rtx-pro-6000-nccl-2.25.1", case(
    ABOUT_RTX_PRO + "; the venv's nvidia-nccl-cu13 wheel is 2.25.1, which stops every collective on compute "
    "capability 12.0 (\"ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\", NVIDIA/nccl-tests#287).",
    RTX_PRO_6000, nccl_wheel("2.25.1"), NCCL_NET))
add("nccl.too-old-for-gpu", "negative-rtx-pro-6000-nccl-2.28.9", case(
    ABOUT_RTX_PRO + "; the venv's real nvidia-nccl-cu13 " + NCCL_REAL_VERSION + " wheel, newer than 2.26.2, the "
    "release that fixed compute capability 12.0.",
    RTX_PRO_6000, nccl_wheel(), NCCL_NET))

# nccl.gpudirect-disabled-by-old-nccl (issues 26 items 4, 5): the two-GPU node with two active HCAs, the
# proprietary module (no dma-buf path) and nvidia_peermem loaded, as rdma.gpudirect-missing's host case
# composes it from the same real H200, beside the venv's NCCL wheel at an old and at the real version.
PEERMEM_NODE_CASE = os.path.join(HERE, "..", "rules", "rdma.gpudirect-missing", "hosts",
                                 "negative-proprietary-module-with-nvidia-peermem.host.json")


def peermem_node():
    node = json.load(open(PEERMEM_NODE_CASE))
    return {"paths": node["paths"], "replace_lines": node["replace_lines"]}


ABOUT_PEERMEM = ("The real H200 container composed into a node with a second GPU, two active InfiniBand HCAs "
                 "(mlx5_0, mlx5_1), the proprietary kernel module (so no dma-buf path) and nvidia_peermem loaded "
                 "without MLNX_OFED's memory_peers/nv_mem")
add("nccl.gpudirect-disabled-by-old-nccl", "positive-nccl-2.21.5-with-nvidia-peermem", case(
    ABOUT_PEERMEM + "; the venv's NCCL wheel is 2.21.5, which looks only for the peer-memory clients and turns "
    "GPUDirect RDMA off (NVIDIA/nccl#1676).",
    peermem_node(), nccl_wheel("2.21.5"), NCCL_NET))
add("nccl.gpudirect-disabled-by-old-nccl", "negative-nccl-2.28.9-with-nvidia-peermem", case(
    ABOUT_PEERMEM + "; the venv's real NCCL " + NCCL_REAL_VERSION + " wheel, which also finds "
    "/sys/module/nvidia_peermem (since 2.23.4).",
    peermem_node(), nccl_wheel(), NCCL_NET))


def main():
    # --out DIR writes the files under DIR (DIR/tests/rules/...); never into the repository, where
    # the test would find each case twice.
    if len(sys.argv) != 3 or sys.argv[1] != "--out":
        sys.exit("usage: make_ml_scenarios.py --out DIR")
    out = sys.argv[2]
    for (rule, name), host in sorted(CASES.items()):
        folder = os.path.join(out, "tests", "rules", rule, "hosts")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name + ".host.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(host, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(CASES)} cases written")


if __name__ == "__main__":
    main()
