# Shared by the end-to-end tests: $1 = gpudoctor binary, $2 = source dir, $3 = fakes dir,
# $4 = aarch64 binary (may be empty). Each assertion prints what failed and the output seen.
set -u
GD=$1
SRC=$2
FAKES=$3
AARCH64=${4:-}
# Every captured host, the committed ones and those made at test time: the folder the ctest
# fixture test.inputs fills (tests/hosts/make_test_inputs.sh); ctest sets GD_TEST_HOSTS.
HOSTS=${GD_TEST_HOSTS:-$(dirname "$GD")/generated/tests/hosts}
if [ ! -f "$HOSTS/h200-live-full.capture.json" ]; then
  echo "FAIL: no captured hosts in $HOSTS: the ctest fixture test.inputs makes them (ctest -R test.inputs)"
  exit 1
fi
failures=0
checks=0
skips=()
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The sanitizer build (ctest there sets GD_SANITIZED=1) exits 1 after a report by default, which
# reads as "an error found". AddressSanitizer (with LeakSanitizer) and UBSan share one exit code
# in one binary (UBSAN_OPTIONS, read last, decides): 86 for both, a code gpudoctor never uses.
GD_SANITIZER_EXIT=86
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=$GD_SANITIZER_EXIT"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=$GD_SANITIZER_EXIT:print_stacktrace=1"

# sanitizer_clean NAME: the run NAME (exit in $rc, stderr in $TMP/NAME.err) printed no sanitizer
# report and did not exit with the sanitizers' code.
sanitizer_clean() {
  checks=$((checks + 1))
  local report
  report=$(grep -m 4 -E 'Sanitizer|runtime error' "$TMP/$1.err")
  if [ -n "$report" ]; then
    fail "$1: sanitizer report (exit $rc): $report"
  elif [ "$rc" = "$GD_SANITIZER_EXIT" ]; then
    fail "$1: exit $rc (the sanitizers' code) without a report on stderr: $(head -c 300 "$TMP/$1.err")"
  fi
}

# run_gd NAME ARGS...: runs gpudoctor, output in $TMP/NAME.out (stdout) and .err, exit in $rc;
# a sanitizer report is a failure of its own.
run_gd() {
  local name=$1; shift
  "$GD" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  sanitizer_clean "$name"
}

# skip REASON: a part of this test that cannot run here. The others still run; finish() then
# exits 125 (ctest: Skipped) when nothing failed, and every reason is printed as "SKIP: ..."
# (make test lists them, tests/print_skips.sh).
skip() {
  skips+=("$*")
  echo "SKIP: $*"
}

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*"
}

expect_rc() {  # NAME EXPECTED
  checks=$((checks + 1))
  [ "$rc" = "$2" ] || { fail "$1: exit $rc, expected $2"; sed 's/^/    /' "$TMP/$1.out" "$TMP/$1.err" | head -40; }
}

expect_out() {  # NAME PATTERN (grep -E on stdout)
  checks=$((checks + 1))
  grep -qE -- "$2" "$TMP/$1.out" || { fail "$1: stdout lacks /$2/"; sed 's/^/    /' "$TMP/$1.out" | head -40; }
}

expect_no_out() {  # NAME PATTERN
  checks=$((checks + 1))
  ! grep -qE -- "$2" "$TMP/$1.out" || { fail "$1: stdout has /$2/"; grep -E -- "$2" "$TMP/$1.out" | head -5; }
}

expect_err() {  # NAME PATTERN (grep -E on stderr)
  checks=$((checks + 1))
  grep -qE -- "$2" "$TMP/$1.err" || { fail "$1: stderr lacks /$2/"; sed 's/^/    /' "$TMP/$1.err" | head -20; }
}

# json_field NAME PYTHON-EXPRESSION: the value of the expression over the JSON on stdout of the
# run NAME, bound to `r` (a report), `d` (a diff) and `f` (a fleet) alike.
json_field() {
  python3 -c 'import json,sys; r = d = f = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$TMP/$1.out" "$2"
}

expect_json() {  # NAME PYTHON-EXPRESSION EXPECTED
  checks=$((checks + 1))
  local got
  got=$(json_field "$1" "$2" 2>&1)
  [ "$got" = "$3" ] || fail "$1: $2 is '$got', expected '$3'"
}


# decoded_strings FILE: every string of the JSON FILE, keys included, one a line, with each
# "base64" content decoded (what a leak scan must see: a capture stores binary reads so).
decoded_strings() {
  python3 -c '
import base64, json, sys
def walk(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            if key == "base64" and isinstance(item, str):
                yield base64.b64decode(item).decode("latin-1")
            else:
                yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
    elif isinstance(value, str):
        yield value
for text in walk(json.load(open(sys.argv[1]))):
    print(text)' "$1"
}
expect_fact() {  # NAME FACT VALUE: the --json report on stdout has FACT present with VALUE (JSON)
  checks=$((checks + 1))
  local got
  got=$(python3 -c 'import json,sys
f = json.load(open(sys.argv[1]))["facts"].get(sys.argv[2])
print(json.dumps(f.get("value")) if f and f.get("state") == "present" else "not present")' "$TMP/$1.out" "$2" 2>&1)
  [ "$got" = "$3" ] || fail "$1: fact $2 is $got, expected $3"
}

expect_err_lines() {  # NAME N: stderr has exactly N lines
  checks=$((checks + 1))
  local n
  n=$(wc -l <"$TMP/$1.err")
  [ "$n" = "$2" ] || { fail "$1: stderr has $n lines, expected $2"; sed 's/^/    /' "$TMP/$1.err" | head -20; }
}

finish() {
  echo "$((checks - failures)) passed, $failures failed, ${#skips[@]} parts skipped"
  [ "$failures" = 0 ] || exit 1
  if [ "${#skips[@]}" -gt 0 ]; then
    printf 'SKIP: %s\n' "${skips[@]}"
    exit 125
  fi
  exit 0
}

# Under the sanitizer build the binary must be instrumented and read the options above.
if [ "${GD_SANITIZED:-0}" = 1 ]; then
  checks=$((checks + 1))
  ASAN_OPTIONS=help=1 "$GD" --version 2>&1 >/dev/null | grep -q 'Available flags for AddressSanitizer' ||
    fail "GD_SANITIZED=1 but $GD does not read ASAN_OPTIONS: not an AddressSanitizer build"
fi
