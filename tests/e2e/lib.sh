# Shared by the end-to-end tests: $1 = gpudoctor binary, $2 = source dir, $3 = fakes dir,
# $4 = aarch64 binary (may be empty). Each assertion prints what failed and the output seen.
set -u
GD=$1
SRC=$2
FAKES=$3
AARCH64=${4:-}
HOSTS=$SRC/tests/hosts
failures=0
checks=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# run_gd NAME ARGS...: runs gpudoctor, output in $TMP/NAME.out (stdout) and .err, exit in $rc.
run_gd() {
  local name=$1; shift
  "$GD" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
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

expect_err_lines() {  # NAME N: stderr has exactly N lines
  checks=$((checks + 1))
  local n
  n=$(wc -l <"$TMP/$1.err")
  [ "$n" = "$2" ] || { fail "$1: stderr has $n lines, expected $2"; sed 's/^/    /' "$TMP/$1.err" | head -20; }
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" = 0 ]
}
