#!/usr/bin/env python3
"""Makes the peer-to-peer captures of tests/hosts (issue 26 item 1): gpudoctor run against the
fake libcuda and NVML (tests/fakes) with the pair proof, kept as the other fake-* captures are: the
helper's run and the real H200's /proc/driver/nvidia/version, the checkout written as
/src/gpudoctor. Committed, not made at test time: the reply holds measured times.

  make_p2p_captures.py GPUDOCTOR FAKES_DIR OUT_DIR
    fake-eight-p2p.capture.json   8 GPUs, all 56 ordered pairs proven (a healthy 8-GPU node)
    fake-two-p2p.capture.json     2 GPUs, both pairs proven (a healthy PCIe workstation)
"""
import json
import os
import subprocess
import sys

CASES = {
    "fake-eight-p2p": {"FAKE_CUDA_DEVICE_COUNT": "8", "FAKE_NVML_DEVICE_COUNT": "8"},
    "fake-two-p2p": {"FAKE_CUDA_DEVICE_COUNT": "2", "FAKE_NVML_DEVICE_COUNT": "2"},
}


def main():
    gd, fakes, out_dir = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.dirname(os.path.dirname(here))
    real = json.load(open(os.path.join(here, "h200-live-full.capture.json")))
    for name, fake_env in CASES.items():
        env = {k: v for k, v in os.environ.items()
               if k not in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "LD_PRELOAD") and not k.startswith("FAKE_")}
        env.update(fake_env)
        done = subprocess.run([gd, "--libcuda", os.path.join(fakes, "libcuda.so.1"),
                               "--libnvml", os.path.join(fakes, "libnvidia-ml.so.1"), "--json"],
                              env=env, capture_output=True, text=True, cwd=checkout)
        capture = json.loads(done.stdout)["capture"]
        runs = [run for run in capture["helper_runs"] if run["mode"] == "user-env"]
        for run in runs:
            run["libcuda"] = "build/helper/fakes/libcuda.so.1"
            run["libnvml"] = "build/helper/fakes/libnvidia-ml.so.1"
        out = {
            "created_by": "gpudoctor 0.1.0 with tests/fakes (%s), tests/hosts/make_p2p_captures.py; paths kept: "
                          "/proc/driver/nvidia/version of the real H200 capture"
                          % " ".join("%s=%s" % kv for kv in sorted(fake_env.items())),
            "cwd": "/src/gpudoctor",
            "env": {"CUDA_VISIBLE_DEVICES": None, "LD_LIBRARY_PATH": None, "LD_PRELOAD": None},
            "format": capture["format"],
            "helper_runs": runs,
            "identity": {"gid": 0, "groups": [], "uid": 0},
            "paths": {"/proc/driver/nvidia/version": real["paths"]["/proc/driver/nvidia/version"]},
            "root": "/",
            "uname": {"machine": "x86_64", "nodename": "vm", "release": "6.18.44-fc-v657", "sysname": "Linux",
                      "version": "#1 SMP PREEMPT_DYNAMIC @0"},
            "version": capture["version"],
        }
        text = json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        text = text.replace(checkout, "/src/gpudoctor")
        with open(os.path.join(out_dir, name + ".capture.json"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
