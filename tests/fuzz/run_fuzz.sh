#!/usr/bin/env bash
# run_fuzz.sh TARGET CORPUS SECONDS [REPORT]: runs one libFuzzer target for SECONDS on a copy of
# its seed corpus and of found/ beside it (the repository's folders are never written to), after
# replaying every crash regression input under crashes/ beside the corpus. Exit 0 only without a
# crash and with the core instrumented; the line "fuzz: NAME: N runs in S s, 0 crashes (...)"
# goes to stdout (and to REPORT when given).
# FUZZ_KEEP=DIR keeps what a long run found, which the temporary folder would lose: a crashing
# input in DIR/crashes/NAME/, the grown corpus in DIR/corpus/NAME/ (for tests/fuzz/merge_corpus.sh).
set -u
target=$1 corpus=$2 seconds=$3 report=${4:-}
name=$(basename "$target")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
[ -d "$corpus" ] && cp -r "$corpus"/. "$work/corpus/" 2>/dev/null
# CORPUS is tests/fuzz/corpus/<target>; found/<target> and crashes/<target> are beside corpus/.
fuzz_dir=$(dirname "$(dirname "$corpus")") target_name=$(basename "$corpus")
# found/<target>: inputs that long runs reached and merge_corpus.sh kept, so short runs start there.
found=$fuzz_dir/found/$target_name
[ -d "$found" ] && cp -r "$found"/. "$work/corpus/" 2>/dev/null
regressions=$fuzz_dir/crashes/$target_name
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
# libFuzzer's "INFO: Loaded 1 modules (N inline 8-bit counters)": N counts the instrumented edges.
# A target's own file has a few hundred; with the core library's code it calls, thousands (3,800
# for the smallest, redact). Under 1,000 means the core was not instrumented and the run was
# blind (CMakeLists.txt, -fsanitize=fuzzer-no-link).
counters=$(grep -oE 'Loaded [0-9]+ modules +\([0-9]+ inline 8-bit counters' "$work/log" | grep -oE '[0-9]+ inline' | grep -oE '[0-9]+' | head -n 1)
if [ "${counters:-0}" -lt 1000 ]; then
  tail -n 20 "$work/log"
  echo "fuzz: $name: only ${counters:-no} instrumented edges: the parsers are not instrumented, the run was blind"
  exit 1
fi
line="fuzz: $name: ${runs:-?} runs in $seconds s, 0 crashes (${coverage:-no coverage line}, ${new_units:-?} new inputs, peak ${peak_rss:-?} MB)"
echo "$line"
[ -n "$report" ] && echo "$line" >>"$report"
exit 0
