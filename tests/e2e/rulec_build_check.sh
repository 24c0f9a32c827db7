# The build-time rule check: rulec accepts rules/, and fails on a broken rule with file:line.
# $1 = rulec, $2 = source dir.
set -u
RULEC=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

checks=$((checks + 1))
"$RULEC" --check-only "$SRC/rules" >"$TMP/ok.out" 2>&1 || { fail "rules/ does not pass rulec"; cat "$TMP/ok.out"; }

mkdir -p "$TMP/rules/cuda"
cp "$SRC/rules/cuda/stub-libcuda.toml" "$TMP/rules/cuda/"
sed -i 's/^severity = "error"/severity = "fatal"/' "$TMP/rules/cuda/stub-libcuda.toml"
line=$(grep -n '^severity' "$TMP/rules/cuda/stub-libcuda.toml" | cut -d: -f1)
checks=$((checks + 1))
if "$RULEC" "$TMP/out.cpp" "$TMP/rules" >"$TMP/bad.out" 2>&1; then fail "rulec accepted severity = \"fatal\""; fi
checks=$((checks + 1))
grep -q "stub-libcuda.toml:$line: .*fatal" "$TMP/bad.out" || { fail "rulec did not name file and line $line"; cat "$TMP/bad.out"; }
checks=$((checks + 1))
[ ! -e "$TMP/out.cpp" ] || fail "rulec wrote its output despite the error"
echo "$((checks - failures)) passed, $failures failed"
[ "$failures" = 0 ]
