#!/usr/bin/env bash
# merge_corpus.sh TARGET GROWN SEEDS: adds to the repository's seed corpus SEEDS only those inputs of
# a long run's grown corpus GROWN (run_fuzz.sh with FUZZ_KEEP) that reach code the seeds do not
# (libFuzzer's -merge=1), so the short runs in `make test` start where the long ones got to.
set -eu
target=$1 grown=$2 seeds=$3
before=$(ls "$seeds" | wc -l)
"$target" -merge=1 "$seeds" "$grown" >/dev/null 2>&1
echo "merge: $(basename "$target"): $before seeds, $(( $(ls "$seeds" | wc -l) - before )) added"
