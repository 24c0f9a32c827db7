#!/usr/bin/env bash
# `make release`: the release archives of the commit checked out, from the binaries just built.
#   release.sh OUT_DIR X86_64_BINARY AARCH64_BINARY
# The version is CMakeLists.txt's; the archives' time is the commit's (SOURCE_DATE_EPOCH when set,
# else git's committer time, else the one `git archive` wrote into cmake/source_commit.txt), so
# two runs from one commit give the same bytes (toolchain/package_release.sh says how).
# A tree with uncommitted changes is refused (RELEASE_DIRTY=1 packs it anyway): its binaries say
# "-dirty" and no commit could make them again.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 OUT_DIR X86_64_BINARY AARCH64_BINARY" >&2; exit 2; }
out=$1 x86=$2 arm=$3
src=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "release: error: $*" >&2; exit 1; }

version=$(sed -n 's/^project(gpudoctor VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || die "no version in $src/CMakeLists.txt"

commit="" epoch=${SOURCE_DATE_EPOCH:-}
if [ -e "$src/.git" ] && command -v git >/dev/null; then
  commit=$(git -C "$src" rev-parse HEAD) || die "git cannot read the commit of $src (git rev-parse HEAD failed)"
  [ -n "$epoch" ] || epoch=$(git -C "$src" log -1 --format=%ct HEAD)
  if { ! GIT_OPTIONAL_LOCKS=0 git -C "$src" diff --quiet HEAD -- ||
       [ -n "$(git -C "$src" ls-files --others --exclude-standard)" ]; } && [ "${RELEASE_DIRTY:-0}" != 1 ]; then
    die "the tree has uncommitted changes or untracked files (git status); commit them, or RELEASE_DIRTY=1 for a test archive"
  fi
else
  { read -r commit && read -r stamp; } <"$src/cmake/source_commit.txt" || true
  [[ $commit =~ ^[0-9a-f]{40}$ ]] || commit=""
  [ -n "$epoch" ] || { [[ ${stamp:-} =~ ^[0-9]+$ ]] && epoch=$stamp; } || true
fi
[ -n "$epoch" ] || die "no commit time: set SOURCE_DATE_EPOCH (no git, and cmake/source_commit.txt was not filled in by git archive)"
# The binaries must be the commit's: each carries the first 12 digits of its hash (--version).
if [ -n "$commit" ]; then
  for b in "$x86" "$arm"; do
    grep -qa "${commit:0:12}" "$b" || die "$b was not built from ${commit:0:12} (rebuild: make build aarch64)"
  done
fi
exec bash "$src/toolchain/package_release.sh" "$out" "$version" "$epoch" "$x86" "$arm"
