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
    paths = verbatim_files()
    for path, (major, minor, mode) in DEVNODES.items():
        paths[path] = {"stat": {"type": "char", "major": major, "minor": minor, "mode": mode, "uid": 0, "gid": 0},
                       "open": "ok"}
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
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(capture, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print("wrote", os.path.relpath(OUT))


if __name__ == "__main__":
    main()
