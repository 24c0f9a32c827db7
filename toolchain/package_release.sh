#!/usr/bin/env bash
# Packs the release archives from built binaries (`make release` calls it):
#   package_release.sh OUT_DIR VERSION EPOCH X86_64_BINARY AARCH64_BINARY
# writes OUT_DIR/gpudoctor-VERSION-linux-x86_64.tar.gz and -linux-aarch64.tar.gz, each holding
# gpudoctor-VERSION-linux-ARCH/{gpudoctor, README.md, LICENSE, THIRD-PARTY-NOTICES,
# report.schema.json}, and OUT_DIR/SHA256SUMS (for `sha256sum -c`).
#
# Reproducible: the archives depend only on the files put in and EPOCH (the commit's time):
# every entry has mtime EPOCH, owner and group 0 written as numbers, fixed modes (0755 for the
# binary and the folder, 0644 for the rest) whatever the umask, entries sorted by name, GNU tar
# format (no pax headers with access times), and gzip -n (no name or time in its header).
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 OUT_DIR VERSION EPOCH X86_64_BINARY AARCH64_BINARY" >&2; exit 2; }
out=$1 version=$2 epoch=$3
declare -A binary=([x86_64]=$4 [aarch64]=$5)
here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "package_release: error: $*" >&2; exit 1; }

[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "version '$version' is not N.N.N"
[[ $epoch =~ ^[0-9]+$ ]] || die "epoch '$epoch' is not a number of seconds"
for arch in x86_64 aarch64; do
  [ -f "${binary[$arch]}" ] || die "no $arch binary at ${binary[$arch]} (make build aarch64)"
  # The right machine, statically linked: the archive name promises both.
  machine=$(LC_ALL=C readelf -hW "${binary[$arch]}" | sed -n 's/^ *Machine: *//p')
  case $arch in
    x86_64) [ "$machine" = "Advanced Micro Devices X86-64" ] || die "${binary[$arch]} is for '$machine', not x86_64" ;;
    aarch64) [ "$machine" = AArch64 ] || die "${binary[$arch]} is for '$machine', not aarch64" ;;
  esac
  ! LC_ALL=C readelf -lW "${binary[$arch]}" | grep -q INTERP || die "${binary[$arch]} is not static (it has an interpreter)"
done
for f in README.md LICENSE THIRD-PARTY-NOTICES docs/report.schema.json; do
  [ -f "$here/$f" ] || die "$here/$f is missing"
done

mkdir -p "$out"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for arch in x86_64 aarch64; do
  name=gpudoctor-$version-linux-$arch
  mkdir "$stage/$name"
  install -m 0755 "${binary[$arch]}" "$stage/$name/gpudoctor"
  for f in README.md LICENSE THIRD-PARTY-NOTICES docs/report.schema.json; do
    install -m 0644 "$here/$f" "$stage/$name/$(basename "$f")"
  done
  chmod 0755 "$stage/$name"
  tar -C "$stage" --sort=name --format=gnu --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
    -cf - "$name" | gzip -9 -n >"$stage/$name.tar.gz"
  mv "$stage/$name.tar.gz" "$out/$name.tar.gz"
done
(cd "$out" && sha256sum "gpudoctor-$version-linux-aarch64.tar.gz" "gpudoctor-$version-linux-x86_64.tar.gz" >SHA256SUMS.tmp &&
  mv SHA256SUMS.tmp SHA256SUMS)
echo "release $version in $out:"
sed 's/^/  /' "$out/SHA256SUMS"
