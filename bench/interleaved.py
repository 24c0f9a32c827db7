#!/usr/bin/env python3
"""Times commands side by side: N rounds, each round runs every command once in the same order,
so that a slow minute of the machine hits all of them alike. Prints the median wall time of
each command, and for commands that report their own numbers (gpudoctor --json: run.duration_ms
and the helper's work; the floor program: floor_ms) the medians of those too.

  interleaved.py [--settle-ms MS] [--swap NAME,NAME] ROUNDS NAME=COMMAND [NAME=COMMAND ...]
Each COMMAND is run with the shell; its stdout is parsed as a gpudoctor JSON report (run time,
the helper's work, its cuInit / context / JIT steps on GPU 0) or a floor line (every step).
--settle-ms waits between commands, so that the driver's teardown of one process's GPU context
(which a process that does not wait for it leaves running) does not slow the next one.
--swap exchanges the places of two commands every other round: what ran before a command
changes its cuInit by up to 90 ms on an H200 (a torch process that exited 600 ms earlier, say),
so two commands compared with each other must each follow every predecessor equally often.
"""
import json
import re
import statistics
import subprocess
import sys
import time


def measure(command):
    start = time.perf_counter()
    done = subprocess.run(command, shell=True, capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1000
    extra = {}
    out = done.stdout
    floor = re.search(r"floor_ms ([0-9.]+)", out)
    if floor:
        extra["answer_ms"] = float(floor.group(1))
        for step in ("init", "context", "jit", "nvml"):
            found = re.search(step + r" ([0-9.]+)", out)
            if found:
                extra[step + "_ms"] = float(found.group(1))
    elif out.lstrip().startswith("{"):
        try:
            report = json.loads(out)
            extra["run_ms"] = report["run"]["duration_ms"]
            facts = report.get("facts", {})
            for key, name in (("cuda.helper.work_ms", "helper_work_ms"), ("cuda.helper.duration_ms", "helper_ms"),
                              ("cuda.init.duration_ms", "init_ms"), ("cuda.device.0.module.jit_ms", "jit_ms")):
                if facts.get(key, {}).get("state") == "present":
                    extra[name] = facts[key]["value"]
            for line in facts.get("cuda.device.0.timeline", {}).get("value", []):
                if line.startswith("context "):
                    extra["context_ms"] = float(line.split()[1])
            # The helper's own steps ('cuInit 117 ms', 'devices 135 ms', 'nvml-wait 3 ms'): where
            # its time goes, and how long its main thread waited for NVML after the GPUs were done.
            for line in facts.get("cuda.helper.timeline", {}).get("value", []):
                step = re.match(r"(\S+) ([0-9.]+) ms", line)
                if step and step.group(1) in ("cuInit", "devices", "nvml-wait", "dlopen-cuda"):
                    extra["step_" + step.group(1) + "_ms"] = float(step.group(2))
            if "run_ms" in extra and "helper_ms" in extra:
                extra["outside_helper_ms"] = extra["run_ms"] - extra["helper_ms"]
            if "helper_ms" in extra and "helper_work_ms" in extra:
                extra["helper_start_ms"] = extra["helper_ms"] - extra["helper_work_ms"]
        except (ValueError, KeyError):
            pass
    return wall, extra, done.returncode


def main():
    args = sys.argv[1:]
    settle = 0.0
    swap = None
    while args and args[0].startswith("--"):
        if args[0] == "--settle-ms":
            settle = float(args[1]) / 1000
        elif args[0] == "--swap":
            swap = args[1].split(",")
        args = args[2:]
    rounds = int(args[0])
    commands = [arg.split("=", 1) for arg in args[1:]]
    samples = {name: {"wall_ms": []} for name, _ in commands}
    codes = {name: set() for name, _ in commands}
    for round_index in range(rounds):
        order = list(commands)
        if swap and round_index % 2 == 1:
            names = [name for name, _ in order]
            a, b = names.index(swap[0]), names.index(swap[1])
            order[a], order[b] = order[b], order[a]
        for name, command in order:
            time.sleep(settle)
            wall, extra, code = measure(command)
            samples[name]["wall_ms"].append(wall)
            codes[name].add(code)
            for key, value in extra.items():
                samples[name].setdefault(key, []).append(value)
    swapped = f", {swap[0]} and {swap[1]} swapped every other round" if swap else ""
    print(f"{rounds} interleaved rounds, {settle * 1000:.0f} ms apart{swapped}; medians in ms (min-max)")
    for name, _ in commands:
        parts = []
        for key, values in samples[name].items():
            parts.append(f"{key} {statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})")
        print(f"  {name:<14} " + ", ".join(parts) + f"  exit {sorted(codes[name])}")
    json.dump({name: {k: statistics.median(v) for k, v in s.items()} for name, s in samples.items()},
              open("/dev/stderr", "w"))


if __name__ == "__main__":
    main()
