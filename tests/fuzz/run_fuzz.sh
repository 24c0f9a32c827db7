#!/usr/bin/env bash
# run_fuzz.sh TARGET CORPUS SECONDS [REPORT]: runs one libFuzzer target for SECONDS on a copy of
# its seed corpus CORPUS (made by make_corpus.py into the build tree; a folder given is never
# written to), plus the inputs long runs found where such a folder exists outside the tree, after
# replaying every crash regression input of tests/fuzz/crashes/<target>/. Exit 0 only without a
# crash and with at least the target's floor of coverage reached (coverage_floors.txt); the line
# "fuzz: NAME: N runs in S s, 0 crashes (...)" goes to stdout (and to REPORT when given).
# FUZZ_KEEP=DIR keeps what a long run found, which the temporary folder would lose: a crashing
# input in DIR/crashes/NAME/, the grown corpus in DIR/corpus/NAME/ (for tests/fuzz/merge_corpus.sh).
# GPUDOCTOR_FUZZ_FOUND=DIR (default ~/.cache/gpudoctor-fuzz/found): found inputs, DIR/<target>/,
# kept by merge_corpus.sh outside the repository (`make fuzz` starts from them); set empty (as
# ctest does, so that `make test` depends on nothing outside the tree) or absent: seeds alone.
set -u
target=$1 corpus=$2 seconds=$3 report=${4:-}
name=$(basename "$target") short=${name#fuzz_}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$corpus" ] || { echo "fuzz: $name: no seed corpus at $corpus (ctest's fuzz.corpus fixture, or make_corpus.py --out, writes it)"; exit 1; }
cp -r "$corpus"/. "$work/corpus/" 2>/dev/null
found_root=${GPUDOCTOR_FUZZ_FOUND-${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-fuzz/found}
found=$found_root/$short
found_note=""
if [ -n "$found_root" ] && [ -d "$found" ] && [ -n "$(ls -A "$found")" ]; then
  cp -r "$found"/. "$work/corpus/" 2>/dev/null
  found_note=", with $(ls "$found" | wc -l) found inputs of $found"
fi
regressions=$here/crashes/$short
if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
  "$target" "$regressions"/* >"$work/regressions.log" 2>&1 || { cat "$work/regressions.log"; exit 1; }
  echo "fuzz: $name: $(ls "$regressions" | wc -l) crash regression inputs replayed"
fi
"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1
rc=$?
final_stat() { grep -oE "stat::$1: *[0-9]+" "$work/log" | grep -oE '[0-9]+$'; }
runs=$(final_stat number_of_executed_units) new_units=$(final_stat new_units_added) peak_rss=$(final_stat peak_rss_mb)
# The last status line carries the coverage: "#N DONE cov: C ft: F corp: ...".
coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -n 1)
if [ -n "${FUZZ_KEEP:-}" ]; then
  mkdir -p "$FUZZ_KEEP/corpus/$name" "$FUZZ_KEEP/crashes/$name"
  cp -r "$work/corpus"/. "$FUZZ_KEEP/corpus/$name/"
  [ -n "$(ls -A "$work/artifacts")" ] && cp "$work/artifacts"/* "$FUZZ_KEEP/crashes/$name/"
fi
if [ $rc -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
  tail -n 60 "$work/log"
  for f in "$work/artifacts"/*; do [ -f "$f" ] && { echo "crash input ($f):"; od -c "$f" | head -20; }; done
  echo "fuzz: $name: crashed (exit $rc)"
  exit 1
fi
# A blind run is one that reaches little of the code it is meant to exercise: the core built
# without coverage instrumentation (CMakeLists.txt, -fsanitize=fuzzer-no-link: then only the
# target's own file counts, about 100 edges), or a target that stopped calling its parser, or a
# parser that refuses every input early. What libFuzzer loaded ("Loaded 1 modules (N inline 8-bit
# counters)") counts what was instrumented, the whole linked core whatever the target calls; the
# coverage the run reached ("cov: C" of its last status line) is what must not fall below the
# target's floor in coverage_floors.txt (70% of what the seeds alone reached in the lower of two runs; 80% for redact).
floors=$here/coverage_floors.txt
counters=$(grep -oE 'Loaded [0-9]+ modules +\([0-9]+ inline 8-bit counters' "$work/log" | grep -oE '[0-9]+ inline' | grep -oE '[0-9]+' | head -n 1)
reached=$(echo "$coverage" | grep -oE '^cov: [0-9]+' | grep -oE '[0-9]+')
floor=$(awk -v t="$short" '$1 == t { print $2 }' "$floors")
if [ -z "$floor" ]; then
  echo "fuzz: $name: no coverage floor for $short in $floors (reached ${reached:-nothing}): add one"
  exit 1
fi
if [ "${reached:-0}" -lt "$floor" ]; then
  tail -n 20 "$work/log"
  echo "fuzz: $name: reached ${reached:-no} coverage of ${counters:-?} instrumented edges, under its floor of $floor: the run was blind"
  exit 1
fi
line="fuzz: $name: ${runs:-?} runs in $seconds s, 0 crashes (${coverage:-no coverage line}, floor $floor, ${new_units:-?} new inputs, peak ${peak_rss:-?} MB$found_note)"
echo "$line"
[ -n "$report" ] && echo "$line" >>"$report"
exit 0
