# `make release` (issue 17 item 3) from the binaries this build made: `make release` is
# toolchain/release.sh on the x86_64 and aarch64 binaries, so the test runs that script twice on
# them (no second build: cheap enough for CI) and checks
#   - the two runs give byte-identical archives and SHA256SUMS, although the second runs from a
#     copy of the packed files without .git (the commit time then from SOURCE_DATE_EPOCH), with
#     other file times, another umask, time zone and locale;
#   - each archive holds gpudoctor-<version>-linux-<arch>/ with the binary (the one built),
#     README.md, LICENSE, THIRD-PARTY-NOTICES and report.schema.json, entries sorted, owner 0:0
#     by number, fixed modes, every mtime the commit's, and gzip without name or time;
#   - sha256sum -c SHA256SUMS passes; the archived binaries' --version print the version, the
#     commit and the target (aarch64 under qemu-user); no build path is in either binary (the
#     source, build and toolchain folders, HOME);
#   - release.sh refuses binaries of the wrong machine.
source "$(dirname "$0")/lib.sh"

[ -n "$AARCH64" ] && [ -f "$AARCH64" ] || { echo "SKIP: no aarch64 binary (make aarch64): a release needs both"; exit 125; }
PY=/usr/bin/python3  # standard library only; Debian's is always there
[ -x "$PY" ] || PY=python3
version=$(sed -n 's/^project(gpudoctor VERSION \([0-9.]*\) .*/\1/p' "$SRC/CMakeLists.txt")
if commit=$(git -C "$SRC" rev-parse HEAD 2>/dev/null); then
  epoch=$(git -C "$SRC" log -1 --format=%ct HEAD)
  # A working tree with changes (a developer's) is packed as a test archive.
  { GIT_OPTIONAL_LOCKS=0 git -C "$SRC" diff --quiet HEAD -- && [ -z "$(git -C "$SRC" ls-files --others --exclude-standard)" ]; } ||
    export RELEASE_DIRTY=1
else
  commit="" epoch=1700000000
  export SOURCE_DATE_EPOCH=$epoch
fi

# make release's recipe is release.sh on the two binaries.
checks=$((checks + 1))
recipe=$(make -n -s -C "$SRC" release BUILD="$(dirname "$GD")" BUILD_AARCH64="$(dirname "$AARCH64")" DIST="$TMP/x" 2>&1 | grep 'release\.sh')
[[ $recipe == *"toolchain/release.sh $TMP/x $(dirname "$GD")/gpudoctor $(dirname "$AARCH64")/gpudoctor"* ]] ||
  fail "make release does not run toolchain/release.sh on both binaries: ${recipe:-no release.sh line}"

# Run 1: from the source tree.
checks=$((checks + 1))
(umask 022 && TZ=UTC bash "$SRC/toolchain/release.sh" "$TMP/a" "$GD" "$AARCH64") >"$TMP/a.log" 2>&1 ||
  { fail "release.sh: $(tail -3 "$TMP/a.log")"; finish; }

# Run 2: from a copy of what is packed, without .git, every file with another time.
mkdir -p "$TMP/src/toolchain" "$TMP/src/docs" "$TMP/src/cmake" "$TMP/bin"
for f in CMakeLists.txt README.md LICENSE THIRD-PARTY-NOTICES docs/report.schema.json cmake/source_commit.txt \
  toolchain/release.sh toolchain/package_release.sh; do
  cp "$SRC/$f" "$TMP/src/$f"
done
cp "$GD" "$TMP/bin/x86_64" && cp "$AARCH64" "$TMP/bin/aarch64"
find "$TMP/src" "$TMP/bin" -exec touch -d '2001-02-03 04:05:06' {} +
checks=$((checks + 1))
(umask 077 && TZ=Asia/Tokyo LC_ALL=C SOURCE_DATE_EPOCH=$epoch \
  bash "$TMP/src/toolchain/release.sh" "$TMP/b" "$TMP/bin/x86_64" "$TMP/bin/aarch64") >"$TMP/b.log" 2>&1 ||
  { fail "release.sh from a copy: $(tail -3 "$TMP/b.log")"; finish; }

names=("gpudoctor-$version-linux-x86_64.tar.gz" "gpudoctor-$version-linux-aarch64.tar.gz" SHA256SUMS)
checks=$((checks + 1))
[ "$(ls "$TMP/a" | sort)" = "$(printf '%s\n' "${names[@]}" | sort)" ] || fail "dist holds $(ls "$TMP/a" | tr '\n' ' ')"
for f in "${names[@]}"; do
  checks=$((checks + 1))
  cmp -s "$TMP/a/$f" "$TMP/b/$f" || fail "$f differs between two runs (reproducibility)"
done
checks=$((checks + 1))
(cd "$TMP/a" && sha256sum -c --strict SHA256SUMS) >"$TMP/sums" 2>&1 || fail "sha256sum -c: $(cat "$TMP/sums")"

# README's install recipe: on the host only the one archive and SHA256SUMS (--ignore-missing),
# and a damaged archive is caught. The README names this version's archives.
checks=$((checks + 1))
grep -qF "gpudoctor-$version-linux-x86_64.tar.gz SHA256SUMS gpu-host:" "$SRC/README.md" ||
  fail "README's install recipe does not copy gpudoctor-$version-linux-x86_64.tar.gz and SHA256SUMS"
check_line=$(grep -m1 '^sha256sum -c' "$SRC/README.md")
mkdir "$TMP/host" && cp "$TMP/a/${names[0]}" "$TMP/a/SHA256SUMS" "$TMP/host/"
checks=$((checks + 1))
(cd "$TMP/host" && eval "$check_line") >"$TMP/host.log" 2>&1 || fail "README's '$check_line' on the host: $(cat "$TMP/host.log")"
printf 'x' >>"$TMP/host/${names[0]}"
checks=$((checks + 1))
! (cd "$TMP/host" && eval "$check_line") >"$TMP/host.log" 2>&1 || fail "README's '$check_line' accepts a damaged archive"

# What is in the archives, entry by entry.
checks=$((checks + 1))
"$PY" - "$TMP/a" "$version" "$epoch" "$GD" "$AARCH64" "$SRC" <<'PYEOF' >"$TMP/contents" 2>&1 || fail "archive contents: $(cat "$TMP/contents")"
import gzip, os, sys, tarfile
dist, version, epoch, x86, arm, src = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
bad = []
for arch, binary in (("x86_64", x86), ("aarch64", arm)):
    path = os.path.join(dist, f"gpudoctor-{version}-linux-{arch}.tar.gz")
    raw = open(path, "rb").read()
    # gzip header: ID1 ID2 CM FLG MTIME(4) ...: no FNAME flag (0x08), MTIME 0.
    if raw[3] & 0x08 or raw[4:8] != b"\0\0\0\0":
        bad.append(f"{path}: gzip header holds a name or a time")
    top = f"gpudoctor-{version}-linux-{arch}"
    want = {top: (0o755, None), f"{top}/LICENSE": (0o644, f"{src}/LICENSE"),
            f"{top}/README.md": (0o644, f"{src}/README.md"),
            f"{top}/THIRD-PARTY-NOTICES": (0o644, f"{src}/THIRD-PARTY-NOTICES"),
            f"{top}/gpudoctor": (0o755, binary), f"{top}/report.schema.json": (0o644, f"{src}/docs/report.schema.json")}
    with tarfile.open(path) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        if names != sorted(want):
            bad.append(f"{path}: entries {names}, expected {sorted(want)} in that order")
        for m in members:
            mode, source = want.get(m.name, (None, None))
            if (m.uid, m.gid, m.uname, m.gname) != (0, 0, "", ""):
                bad.append(f"{m.name}: owner {m.uid}:{m.gid} ({m.uname!r}:{m.gname!r}), expected 0:0 by number")
            if m.mtime != epoch:
                bad.append(f"{m.name}: mtime {m.mtime}, expected the commit's {epoch}")
            if mode is not None and m.mode != mode:
                bad.append(f"{m.name}: mode {oct(m.mode)}, expected {oct(mode)}")
            if m.pax_headers:
                bad.append(f"{m.name}: pax headers {m.pax_headers}")
            if source and tar.extractfile(m).read() != open(source, "rb").read():
                bad.append(f"{m.name} is not {source}")
print("\n".join(bad) or "contents as expected")
sys.exit(1 if bad else 0)
PYEOF

# The archived binaries: --version, and no build path inside.
mkdir "$TMP/x86" "$TMP/arm"
tar -C "$TMP/x86" -xzf "$TMP/a/${names[0]}" && tar -C "$TMP/arm" -xzf "$TMP/a/${names[1]}"
x86_bin=$TMP/x86/gpudoctor-$version-linux-x86_64/gpudoctor
arm_bin=$TMP/arm/gpudoctor-$version-linux-aarch64/gpudoctor
want_commit=${commit:0:12}
[ -n "$want_commit" ] || want_commit=unknown
"$x86_bin" --version >"$TMP/v.out" 2>"$TMP/v.err"
rc=$?
expect_rc v 0
expect_out v "^gpudoctor $version \(commit $want_commit(-dirty)?, x86_64-linux-musl\)$"
if QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64); then
  "$QEMU" "$arm_bin" --version >"$TMP/va.out" 2>"$TMP/va.err"
  rc=$?
  expect_rc va 0
  expect_out va "^gpudoctor $version \(commit $want_commit(-dirty)?, aarch64-linux-musl\)$"
else
  skip "qemu-user not installed: the aarch64 binary's --version is not run"
fi
toolchain=$(bash "$SRC/toolchain/install.sh" --print-dir)
paths=("$(cd "$SRC" && pwd -P)" "$(cd "$(dirname "$GD")" && pwd -P)" "$(cd "$(dirname "$AARCH64")" && pwd -P)" "$toolchain")
[ -n "${HOME:-}" ] && [ "$HOME" != / ] && paths+=("$HOME")
for b in "$x86_bin" "$arm_bin"; do
  for p in "${paths[@]}"; do
    checks=$((checks + 1))
    # A path below it: the folder's bare name may be data (the pre-flight searches /root for Python).
    ! grep -qaF -- "$p/" "$b" || fail "$(basename "$(dirname "$b")") holds the build path $p/"
  done
done

# The wrong machine's binary in an archive named for another is refused.
run_name=swapped
bash "$SRC/toolchain/release.sh" "$TMP/c" "$AARCH64" "$GD" >"$TMP/$run_name.out" 2>"$TMP/$run_name.err"
rc=$?
expect_rc "$run_name" 1
expect_err "$run_name" "is for 'AArch64', not x86_64"
checks=$((checks + 1))
[ ! -e "$TMP/c/${names[0]}" ] || fail "a refused release left an archive behind"
finish
