#!/usr/bin/env bash
# One device-machine call for session 11 (issue 26, the 1.05 x goal): where the whole run's time
# goes beyond the floor program's, with the two changes tried against the binary before them, all
# in one interleaved loop (bench/interleaved.py), twice (the loop-to-loop spread is part of the
# answer):
#   gpudoctor  this binary (the python and NCCL probes run while the helper works)
#   ctx        the same, NVML's thread started once the first GPU's context exists
#              (GPUDOCTOR_HELPER_NVML_START=context, a bench/-only switch of the helper)
#   proof      the same, NVML started after the GPUs' proofs (GPUDOCTOR_HELPER_NVML_START=proof)
#   old        the binary before this session's change (NVML beside the contexts, python after)
#   floor      bench/cuda_floor.c, timed to its answer
#   version    `gpudoctor --version`: starting and ending the process, nothing else
# Plus the healthy report of this binary. Everything lands in $OUT/results.tgz.
#   bash bench/device_session11.sh   (from a folder build-device/ holding gpudoctor, old-gpudoctor,
#                                     cuda-floor and peak_rss)
set -u
D=${D:-build-device}; R=$OUT/r; mkdir -p "$R" /tmp/gd-bin
cp "$D"/* /tmp/gd-bin/ && chmod 755 /tmp/gd-bin /tmp/gd-bin/*
GD=/tmp/gd-bin/gpudoctor; OLD=/tmp/gd-bin/old-gpudoctor
nvidia-smi -L >"$R/host.txt" 2>&1
$GD --color never >"$R/healthy.txt" 2>&1; echo "exit $?" >>"$R/healthy.txt"
$GD --json >"$R/healthy.json" 2>/dev/null
for when in context proof; do
  GPUDOCTOR_HELPER_NVML_START=$when $GD --color never >"$R/healthy-nvml-$when.txt" 2>&1
  echo "exit $?" >>"$R/healthy-nvml-$when.txt"
done
for loop in 1 2; do
  python3 bench/interleaved.py --settle-ms 300 --swap gpudoctor,floor ${ROUNDS:-31} \
    "gpudoctor=$GD --json --no-capture" "floor=/tmp/gd-bin/cuda-floor" \
    "ctx=GPUDOCTOR_HELPER_NVML_START=context $GD --json --no-capture" \
    "old=$OLD --json --no-capture" \
    "proof=GPUDOCTOR_HELPER_NVML_START=proof $GD --json --no-capture" \
    "version=$GD --version" "no-cuda=$GD --no-cuda --json --no-capture" \
    >"$R/bench-$loop.txt" 2>"$R/bench-$loop-medians.json"
done
{ echo "peak RSS KiB, wall ms: full run; --no-cuda"; /tmp/gd-bin/peak_rss $GD --json --no-capture
  /tmp/gd-bin/peak_rss $GD --no-cuda --json --no-capture; } >"$R/peak-rss.txt" 2>&1
tail -5 "$R/healthy.txt"; cat "$R/bench-1.txt" "$R/bench-2.txt"
tar -czf "$OUT/results.tgz" -C "$R" .
