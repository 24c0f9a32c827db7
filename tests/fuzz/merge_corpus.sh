#!/usr/bin/env bash
# merge_corpus.sh TARGET SEEDS GROWN...: keeps in $GPUDOCTOR_FUZZ_FOUND/<target>/ (default
# ~/.cache/gpudoctor-fuzz/found, outside the repository; run_fuzz.sh reads it), beside the seeds SEEDS,
# those inputs of long runs' grown corpora GROWN (run_fuzz.sh with FUZZ_KEEP) that reach code
# neither the seeds nor found/ reach yet (libFuzzer's -merge=1 picks the fewest, smallest inputs
# that cover every feature), so that the short runs in `make test` start where the long ones got
# to. Inputs over MAX_LEN bytes (default 4096) are left out to keep the folder small. The
# seeds stay as make_corpus.py writes them.
set -eu
target=$1 seeds=$2
shift 2
max_len=${MAX_LEN:-4096}
short=$(basename "$target"); short=${short#fuzz_}
found=${GPUDOCTOR_FUZZ_FOUND:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-fuzz/found}/$short
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$found" "$work/known" "$work/small"
cp "$seeds"/* "$work/known/"
[ -n "$(ls -A "$found")" ] && cp "$found"/* "$work/known/"
for grown in "$@"; do
  find "$grown" -maxdepth 1 -type f -size -$((max_len + 1))c -exec cp {} "$work/small/" \;
done
ls "$work/known" | sort >"$work/before"
"$target" -merge=1 -rss_limit_mb=4096 "$work/known" "$work/small" >"$work/log" 2>&1 || { tail -n 20 "$work/log"; exit 1; }
ls "$work/known" | sort | comm -13 "$work/before" - >"$work/added"
while read -r name; do cp "$work/known/$name" "$found/"; done <"$work/added"
echo "merge: $(basename "$target"): $(wc -l <"$work/added") inputs added to $found ($(du -sh "$found" | cut -f1))"
