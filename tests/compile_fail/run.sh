# Usage: run.sh CXX SOURCE_DIR. Each tests/compile_fail/*.cpp but accepted.cpp must fail to compile
# with the text of its "// expect:" line; accepted.cpp must compile (README.md).
set -u
cxx=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# -c to a scratch object: zig's c++ wants an output file even where -fsyntax-only would do.
flags=(-std=c++2b -c -o "$tmp/out.o" -I "$src/src")
status=0
if ! out=$("$cxx" "${flags[@]}" "$src/tests/compile_fail/accepted.cpp" 2>&1); then
  echo "FAIL: accepted.cpp does not compile:"; echo "$out"; exit 1
fi
for file in "$src"/tests/compile_fail/*.cpp; do
  name=$(basename "$file")
  [ "$name" = accepted.cpp ] && continue
  expect=$(sed -n 's|^// expect: ||p' "$file")
  if out=$("$cxx" "${flags[@]}" "$file" 2>&1); then
    echo "FAIL: $name compiles"; status=1
  elif ! grep -qF -- "$expect" <<<"$out"; then
    echo "FAIL: $name fails, but not with '$expect':"; echo "$out" | head -20; status=1
  else
    echo "ok: $name does not compile ($expect)"
  fi
done
exit $status
