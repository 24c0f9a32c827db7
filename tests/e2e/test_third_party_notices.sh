# THIRD-PARTY-NOTICES is true of the build: it is what toolchain/third_party_notices.py writes from
# the license texts of the copies the build uses (zig's lib tree, Debian's copyright files), and
# its "Linked into" and "Compiled into" lines cover every library the links of gpudoctor and of
# the embedded CUDA helper take and every header they compile, with no stale entry
# (tests/e2e/check_third_party_notices.py runs each link again with ZIG_VERBOSE_LINK=1, and reads
# the compiler's .o.d files). The aarch64 build is checked too when there is one (make test builds it).
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3  # any python3 would do (standard library only); Debian's is always there
[ -x "$PY" ] || PY=python3
toolchain=$(bash "$SRC/toolchain/install.sh" --print-dir)
builds=("$(dirname "$GD")")
if [ -n "$AARCH64" ] && [ -f "$AARCH64" ]; then
  builds+=("$(dirname "$AARCH64")")
else
  skip "no aarch64 build (make aarch64): its links are not checked"
fi

checks=$((checks + 1))
if "$PY" "$SRC/toolchain/third_party_notices.py" "$toolchain" >"$TMP/notices" 2>"$TMP/notices.err"; then
  diff -u "$SRC/THIRD-PARTY-NOTICES" "$TMP/notices" >"$TMP/notices.diff" ||
    { fail "THIRD-PARTY-NOTICES is not what toolchain/third_party_notices.py writes now (regenerate and review):"; head -30 "$TMP/notices.diff"; }
else
  fail "toolchain/third_party_notices.py: $(cat "$TMP/notices.err")"
fi

checks=$((checks + 1))
"$PY" "$SRC/tests/e2e/check_third_party_notices.py" "$SRC/THIRD-PARTY-NOTICES" "$toolchain" "${builds[@]}" >"$TMP/check" 2>&1 ||
  fail "THIRD-PARTY-NOTICES does not match the build"
cat "$TMP/check"
finish
