#!/bin/bash
# build-oci-layout.sh BINARY LICENSE LAYOUT [TAG]: writes LAYOUT, an OCI image layout
# (https://github.com/opencontainers/image-spec, image-layout.md) of one image made FROM scratch:
#   /usr/local/bin/gpudoctor            BINARY, mode 0755, the entrypoint
#   /usr/share/doc/gpudoctor/LICENSE    LICENSE, mode 0644
# and nothing else (gpudoctor is one static binary). `make image` runs it; README.md, "Fleets",
# says how to use the layout (COPY --from=, skopeo copy).
#
# The layout is written directly (tar, gzip, sha256sum), with no daemon, no root and no registry,
# and is reproducible: the same inputs give the same bytes and so the same digests (fixed owner,
# order and mtime in the layer, gzip without a name or time, `created` from SOURCE_DATE_EPOCH or
# the last commit's time). TAG defaults to the version BINARY prints; the platform is read from
# BINARY's ELF header (amd64 or arm64). LAYOUT is replaced whole: it is built beside it, then
# renamed, so a failed run leaves no half-written layout.
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: $0 BINARY LICENSE LAYOUT [TAG]" >&2
  exit 2
fi
bin=$1 license=$2 layout=${3%/} tag=${4-}
for f in "$bin" "$license"; do
  if [ ! -f "$f" ] || [ ! -r "$f" ]; then echo "$0: error: $f: not a readable file" >&2; exit 2; fi
done
here=$(cd "$(dirname "$0")" && pwd)

# The platform, from the ELF header: e_machine (2 bytes, little-endian) at offset 18.
case "$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' \n')" in
  3e00) arch=amd64 ;;
  b700) arch=arm64 ;;
  *) echo "$0: error: $bin: not an x86-64 or aarch64 ELF binary" >&2; exit 2 ;;
esac
if [ -z "$tag" ]; then
  version=$("$bin" --version 2>/dev/null) || { echo "$0: error: $bin --version failed: give the TAG" >&2; exit 2; }
  tag=$(printf "%s\n" "$version" | awk '{print $2}')  # "gpudoctor 0.1.0 (commit ..., target)"
fi
[[ "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$ ]] || { echo "$0: error: '$tag' is not an image tag" >&2; exit 2; }
version=$tag
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

mkdir -p "$(dirname "$layout")"
work=$(mktemp -d "${layout}.tmp.XXXXXX")
work=$(cd "$work" && pwd)  # absolute: the layer is made from inside the root filesystem
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
out=$work/layout
mkdir -p "$root/usr/local/bin" "$root/usr/share/doc/gpudoctor" "$out/blobs/sha256"
install -m 0755 "$bin" "$root/usr/local/bin/gpudoctor"
install -m 0644 "$license" "$root/usr/share/doc/gpudoctor/LICENSE"
find "$root" -type d -exec chmod 0755 {} +

# blob FILE: moves FILE into blobs/sha256/<digest>; prints "DIGEST SIZE".
blob() {
  local digest size
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  mv "$1" "$out/blobs/sha256/$digest"
  echo "sha256:$digest $size"
}

# The layer: directories first (tar lists a directory before what it holds), uid/gid 0.
(cd "$root" && find usr -print0 | LC_ALL=C sort -z |
  tar --null --no-recursion -T - --format=gnu --numeric-owner --owner=0 --group=0 \
    --mtime="@$epoch" -cf "$work/layer.tar")
diff_id=sha256:$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n -9 <"$work/layer.tar" >"$work/layer.tar.gz"
read -r layer_digest layer_size < <(blob "$work/layer.tar.gz")

labels='"org.opencontainers.image.title":"gpudoctor","org.opencontainers.image.description":"finds out why CUDA does not work on a host, and says how to fix it","org.opencontainers.image.licenses":"Apache-2.0","org.opencontainers.image.version":"'"$version"'"'
printf '%s' '{"architecture":"'"$arch"'","os":"linux","created":"'"$created"'",'\
'"config":{"Entrypoint":["/usr/local/bin/gpudoctor"],"Labels":{'"$labels"'}},'\
'"rootfs":{"type":"layers","diff_ids":["'"$diff_id"'"]},'\
'"history":[{"created":"'"$created"'","created_by":"deploy/image/build-oci-layout.sh: the static gpudoctor and its LICENSE"}]}' \
  >"$work/config.json"
read -r config_digest config_size < <(blob "$work/config.json")

printf '%s' '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",'\
'"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"'"$config_digest"'","size":'"$config_size"'},'\
'"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"'"$layer_digest"'","size":'"$layer_size"'}],'\
'"annotations":{'"$labels"',"org.opencontainers.image.created":"'"$created"'"}}' >"$work/manifest.json"
read -r manifest_digest manifest_size < <(blob "$work/manifest.json")

printf '%s' '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{'\
'"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"'"$manifest_digest"'","size":'"$manifest_size"','\
'"platform":{"architecture":"'"$arch"'","os":"linux"},"annotations":{"org.opencontainers.image.ref.name":"'"$tag"'"}}]}' \
  >"$out/index.json"
printf '%s' '{"imageLayoutVersion":"1.0.0"}' >"$out/oci-layout"

rm -rf "$layout"
mv "$out" "$layout"
echo "$layout: OCI image layout, gpudoctor:$tag ($arch), manifest $manifest_digest"
