#!/usr/bin/env bash
# Makes the test inputs that are not stored in git, into OUT (the build tree's generated/, laid
# out as the repository is); the ctest fixture test.inputs runs it before the tests that read them
# (tests/CMakeLists.txt), in every build, the sanitizer build included:
#   OUT/tests/hosts/             every capture the tests replay: each committed tests/hosts/*.capture.json
#                                (a link to it), and each tests/hosts/NAME.host.json composed by
#                                COMPOSER (compose_capture.cpp) into NAME.capture.json: a capture
#                                stored as its base capture plus what differs
#   OUT/tests/rules/<rule>/hosts/  the ML-stack rule host cases of make_ml_scenarios.py
# Consumers look there: the unit tests (GD_GENERATED_DIR), the end-to-end scripts (GD_TEST_HOSTS,
# e2e/lib.sh), tests/hosts/replay_reports.sh and the fuzz seed corpus (tests/fuzz/make_corpus.py).
#   bash tests/hosts/make_test_inputs.sh build/tests/compose_capture build/generated
set -euo pipefail
composer=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
# Nothing of an earlier run stays: a capture or case removed from the sources must disappear here.
rm -rf "$out/tests"
mkdir -p "$out/tests/hosts"
for capture in "$here"/*.capture.json; do
  ln -s "$capture" "$out/tests/hosts/$(basename "$capture")"
done
made=0
for host in "$here"/*.host.json; do
  [ -e "$host" ] || continue
  name=$(basename "$host" .host.json)
  if [ -e "$here/$name.capture.json" ]; then
    echo "make_test_inputs.sh: $name is both a committed capture and a host file" >&2
    exit 1
  fi
  "$composer" "$host" "$out/tests/hosts/$name.capture.json"
  made=$((made + 1))
done
python3 "$here/make_ml_scenarios.py" --out "$out"
echo "$(ls "$out/tests/hosts" | wc -l) captures in $out/tests/hosts ($made composed from host files)"
