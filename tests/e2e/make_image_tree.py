#!/usr/bin/env python3
"""Writes an unpacked container image for the pre-flight tests (issue 18) as a runtime bundle:
OUT/config.json (the OCI runtime configuration `umoci unpack` writes, its variables under
process.env) and OUT/rootfs/ with a real Python packaging layout:

  /usr/bin/python3.12, a venv /opt/venv (pyvenv.cfg, bin/python3 -> /usr/bin/python3.12) whose
  site-packages hold torch VERSION (torch/version.py as tools/generate_torch_version.py writes it,
  torch-X.dist-info/METADATA from tests/fixtures/python) and torch/lib/libtorch_cuda.so: the
  ELF stand-in of tests/hosts/make_ml_scenarios.py, whose .nv_fatbin holds fat binaries of the
  architectures given.

Usage: make_image_tree.py OUT cu124|cu130 [NVIDIA_REQUIRE_CUDA]
  cu124: torch 2.6.0+cu124 (PyPI's 2.6.0, CUDA 12.4, SASS sm_50 ... sm_90, no PTX: pytorch #143538)
  cu130: torch 2.11.0+cu130 (CUDA 13.0, SASS sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, as on the H200)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hosts"))
import make_ml_scenarios as ml  # noqa: E402  (the stand-in ELF and the version.py writer)

FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "python")
VENV = "/opt/venv"
SITE = VENV + "/lib/python3.12/site-packages"

BUILDS = {
    "cu124": {"dist": "torch-2.6.0.dist-info", "arches": [50, 60, 70, 75, 80, 86, 90],
              "version_py": lambda: ml.torch_version_py("2.6.0+cu124", "12.4"),
              "metadata": lambda: ml.TORCH_26_METADATA + "\n"},
    "cu130": {"dist": "torch-2.11.0.dist-info", "arches": [75, 80, 86, 90, 100, 120],
              "version_py": lambda: fixture("torch-2.11.0+cu130.version.py"),
              "metadata": lambda: fixture("torch-2.11.0.METADATA")},
}


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def write(root, path, data, mode=0o644):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(full, mode)


def link(root, path, target):
    full = root + path
    os.makedirs(os.path.dirname(full), exist_ok=True)
    os.symlink(target, full)


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in BUILDS:
        sys.exit(__doc__)
    out, build = sys.argv[1], BUILDS[sys.argv[2]]
    rootfs = os.path.join(out, "rootfs")
    write(rootfs, "/etc/os-release", 'NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\n')
    write(rootfs, "/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n")
    write(rootfs, "/usr/bin/python3.12", b"", 0o755)
    link(rootfs, VENV + "/bin/python", "/usr/bin/python3.12")
    link(rootfs, VENV + "/bin/python3", "python")
    write(rootfs, VENV + "/pyvenv.cfg", "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.3\n"
          "include-system-site-packages = false\n")
    write(rootfs, SITE + "/torch/__init__.py", "")
    write(rootfs, SITE + "/torch/version.py", build["version_py"]())
    write(rootfs, SITE + "/" + build["dist"] + "/METADATA", build["metadata"]())
    write(rootfs, SITE + "/torch/lib/libtorch_cuda.so", ml.libtorch_stand_in(build["arches"]), 0o755)
    env = ["PATH=" + VENV + "/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
           "HF_TOKEN=hf_not_a_real_token_but_secret_looking"]
    if len(sys.argv) == 4:
        env.append("NVIDIA_REQUIRE_CUDA=" + sys.argv[3])
    config = {"ociVersion": "1.0.2", "process": {"args": ["/bin/sh"], "cwd": "/", "env": env},
              "root": {"path": "rootfs"}}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    main()
