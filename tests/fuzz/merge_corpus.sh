#!/usr/bin/env bash
# merge_corpus.sh TARGET GROWN SEEDS: keeps in found/<target>/ (beside the seed corpus SEEDS) those
# inputs of a long run's grown corpus GROWN (run_fuzz.sh with FUZZ_KEEP) that reach code neither
# the seeds nor found/ reach yet (libFuzzer's -merge=1), so that the short runs in `make test` start
# where the long ones got to. The seeds stay as make_corpus.py writes them.
set -eu
target=$1 grown=$2 seeds=$3
found=$(dirname "$seeds")/found/$(basename "$seeds")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$found" "$work/known"
cp "$seeds"/* "$work/known/"
[ -n "$(ls -A "$found")" ] && cp "$found"/* "$work/known/"
ls "$work/known" | sort >"$work/before"
"$target" -merge=1 "$work/known" "$grown" >"$work/log" 2>&1 || { tail -n 20 "$work/log"; exit 1; }
ls "$work/known" | sort | comm -13 "$work/before" - >"$work/added"
while read -r name; do cp "$work/known/$name" "$found/"; done <"$work/added"
echo "merge: $(basename "$target"): $(wc -l <"$work/added") inputs added to $found"
