# `make image` (issue 15 item 6): deploy/image/build-oci-layout.sh writes an OCI image layout of a
# FROM-scratch image holding the static binary and LICENSE. Checked with the tools of others:
# skopeo reads and copies it (verifying every digest), umoci unpacks it; the binary then runs
# from the unpacked root filesystem, alone there (chroot, as root). Also: the layout is
# reproducible, a corrupt blob is caught, bad arguments are one error line (exit 2), the
# Makefile's target runs the script, and README's recipes ("### Container image") use paths
# that are in the image.
source "$(dirname "$0")/lib.sh"
BUILDER=$SRC/deploy/image/build-oci-layout.sh
README=$SRC/README.md
LICENSE=$SRC/LICENSE

missing=
for tool in umoci skopeo; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  # toolchain/install.sh installs them; on CI their absence is a broken machine, not a skip.
  if [ "${CI:-0}" = 1 ]; then echo "FAIL: CI=1 but not installed:$missing"; exit 1; fi
  echo "SKIP: not installed:$missing (toolchain/install.sh installs umoci and skopeo)"
  exit 125
fi
tag=$("$GD" --version) && tag=$(printf "%s\n" "$tag" | awk '{print $2}')  # "gpudoctor 0.1.0 (commit ..., target)"

# build NAME ARGS...: run the builder, output in $TMP/NAME.out/.err, exit in $rc
build() {
  local name=$1
  shift
  bash "$BUILDER" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
}

# 1. Built twice: the same bytes (reproducible), and what skopeo reads back.
build first "$GD" "$LICENSE" "$TMP/image"
expect_rc first 0
expect_out first "^$TMP/image: OCI image layout, gpudoctor:$tag \(amd64\), manifest sha256:[0-9a-f]{64}\$"
build second "$GD" "$LICENSE" "$TMP/again"
checks=$((checks + 1))
diff -r "$TMP/image" "$TMP/again" >"$TMP/diff.txt" 2>&1 || fail "two builds differ: $(head -5 "$TMP/diff.txt")"
checks=$((checks + 1))
[ -z "$(ls -d "$TMP"/image.tmp.* "$TMP"/again.tmp.* 2>/dev/null)" ] || fail "the builder left its work folder behind"

skopeo inspect "oci:$TMP/image:$tag" >"$TMP/inspect.out" 2>"$TMP/inspect.err"
rc=$?
expect_rc inspect 0
got=$(python3 -c 'import json, sys
i = json.load(open(sys.argv[1]))
print(i["Architecture"], i["Os"], len(i["Layers"]), i["Labels"]["org.opencontainers.image.version"], i["Labels"]["org.opencontainers.image.licenses"])' \
  "$TMP/inspect.out" 2>&1)
checks=$((checks + 1))
[ "$got" = "amd64 linux 1 $tag Apache-2.0" ] || fail "skopeo inspect: '$got', expected 'amd64 linux 1 $tag Apache-2.0'"

# 2. umoci unpacks it; the root filesystem is exactly the binary and LICENSE; the entrypoint is
#    the binary.
unpack() {  # NAME LAYOUT: umoci unpack into $TMP/NAME.bundle
  local rootless=
  [ "$(id -u)" = 0 ] || rootless=--rootless
  umoci unpack $rootless --image "$2:$tag" "$TMP/$1.bundle" >"$TMP/$1.out" 2>"$TMP/$1.err"
  rc=$?
}
unpack unpack "$TMP/image"
expect_rc unpack 0
rootfs=$TMP/unpack.bundle/rootfs
listing=$(cd "$rootfs" && find . -mindepth 1 -printf '%M %p\n' | LC_ALL=C sort)
expected='-rw-r--r-- ./usr/share/doc/gpudoctor/LICENSE
-rwxr-xr-x ./usr/local/bin/gpudoctor
drwxr-xr-x ./usr
drwxr-xr-x ./usr/local
drwxr-xr-x ./usr/local/bin
drwxr-xr-x ./usr/share
drwxr-xr-x ./usr/share/doc
drwxr-xr-x ./usr/share/doc/gpudoctor'
checks=$((checks + 1))
[ "$listing" = "$expected" ] || { fail "the image holds other files than the binary and LICENSE:"; diff <(echo "$expected") <(echo "$listing") | sed 's/^/    /'; }
checks=$((checks + 1))
cmp -s "$GD" "$rootfs/usr/local/bin/gpudoctor" && cmp -s "$LICENSE" "$rootfs/usr/share/doc/gpudoctor/LICENSE" ||
  fail "the image's binary or LICENSE is not the one built"
got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["process"]["args"])' "$TMP/unpack.bundle/config.json" 2>&1)
checks=$((checks + 1))
[ "$got" = "['/usr/local/bin/gpudoctor']" ] || fail "the entrypoint is $got, expected ['/usr/local/bin/gpudoctor']"

# 3. The binary runs from the image: from its root filesystem, and (as root) chrooted into it,
#    where nothing but the image exists: no libc, no /proc, no /sys.
GD_IMAGE=$rootfs/usr/local/bin/gpudoctor
"$GD_IMAGE" --version >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
expect_rc run 0
expect_out run "^gpudoctor $tag "
if [ "$(id -u)" = 0 ] && command -v chroot >/dev/null; then
  chroot "$rootfs" /usr/local/bin/gpudoctor --version >"$TMP/chroot.out" 2>"$TMP/chroot.err"
  rc=$?
  expect_rc chroot 0
  expect_out chroot "^gpudoctor $tag "
  chroot "$rootfs" /usr/local/bin/gpudoctor --json --no-capture >"$TMP/chroot_check.out" 2>"$TMP/chroot_check.err"
  rc=$?
  checks=$((checks + 1))
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "chroot_check: exit $rc: $(head -3 "$TMP/chroot_check.err")"
  checks=$((checks + 1))
  python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema_version"] == 1' "$TMP/chroot_check.out" 2>/dev/null ||
    fail "chroot_check: no JSON report: $(head -c 300 "$TMP/chroot_check.out")"
else
  skip "not root: the binary was not run chrooted into the image"
fi

# 4. A corrupt blob is caught by both tools (the check above would otherwise prove little).
cp -r "$TMP/image" "$TMP/corrupt"
layer=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1] + "/index.json"))["manifests"][0]["digest"].split(":")[1]
print(json.load(open(sys.argv[1] + "/blobs/sha256/" + m))["layers"][0]["digest"].split(":")[1])' "$TMP/corrupt")
printf 'x' | dd of="$TMP/corrupt/blobs/sha256/$layer" bs=1 seek=100 conv=notrunc 2>/dev/null
unpack corrupt_unpack "$TMP/corrupt"
checks=$((checks + 1))
[ "$rc" != 0 ] || fail "umoci unpacked a layout with a corrupt layer"
skopeo copy "oci:$TMP/corrupt:$tag" "oci:$TMP/corrupt-copy:$tag" >"$TMP/corrupt_copy.out" 2>"$TMP/corrupt_copy.err"
rc=$?
checks=$((checks + 1))
[ "$rc" != 0 ] || fail "skopeo copied a layout with a corrupt layer"

# Relative paths, as `make image` gives them (run from the source folder): the same image.
mkdir -p "$TMP/rel/bin"
cp "$GD" "$TMP/rel/bin/gpudoctor"
cp "$LICENSE" "$TMP/rel/LICENSE"
(cd "$TMP/rel" && bash "$BUILDER" bin/gpudoctor LICENSE out/image) >"$TMP/relative.out" 2>"$TMP/relative.err"
rc=$?
expect_rc relative 0
checks=$((checks + 1))
diff -r "$TMP/image" "$TMP/rel/out/image" >"$TMP/diff.txt" 2>&1 || fail "relative: not the same image: $(head -3 "$TMP/diff.txt")"

# 5. Bad arguments: one error line, exit 2, no layout.
build no_args
expect_rc no_args 2
build no_binary "$TMP/nothing" "$LICENSE" "$TMP/out-bad1"
expect_rc no_binary 2
expect_err no_binary "error: $TMP/nothing: not a readable file"
expect_err_lines no_binary 1
build not_elf "$LICENSE" "$LICENSE" "$TMP/out-bad2"
expect_rc not_elf 2
expect_err not_elf "error: $LICENSE: not an x86-64 or aarch64 ELF binary"
build bad_tag "$GD" "$LICENSE" "$TMP/out-bad3" "no tag"
expect_rc bad_tag 2
expect_err bad_tag "error: 'no tag' is not an image tag"
checks=$((checks + 1))
[ -z "$(ls -d "$TMP"/out-bad* 2>/dev/null)" ] || fail "a failed build left something: $(ls -d "$TMP"/out-bad*)"
# An aarch64 binary, where the build has one: an arm64 image (its --version cannot run here).
if [ -n "$AARCH64" ] && [ -f "$AARCH64" ]; then
  build arm64 "$AARCH64" "$LICENSE" "$TMP/arm64" "$tag"
  expect_rc arm64 0
  expect_out arm64 "gpudoctor:$tag \(arm64\)"
fi

# 6. `make image` runs this builder on the build's binary (make -n: nothing is built here).
make -n -C "$SRC" image BUILD="$TMP/b" >"$TMP/make.out" 2>"$TMP/make.err"
rc=$?
expect_rc make 0
expect_out make "deploy/image/build-oci-layout.sh $TMP/b/gpudoctor LICENSE $TMP/b/image\$"

# 7. README's recipes, as written there: the skopeo push (to a second layout here: no registry
#    can be reached from a test), the docker-archive copy (docker itself is not run), and the
#    Dockerfile's COPY --from= of paths the image holds.
blocks=$(awk '
  !fenced && /^#+ / { inside = ($0 == "### Container image") }
  inside && /^```/ { fenced = !fenced; next }
  inside && fenced { print }' "$README")
push=$(grep -m1 '^skopeo copy oci:build/image:' <<<"$blocks")
checks=$((checks + 1))
if [ -z "$push" ] || ! grep -qx 'make image' <<<"$blocks"; then
  fail "README.md's \"### Container image\" lacks 'make image' or the 'skopeo copy oci:build/image:...' line"
else
  read -r -a argv <<<"$push"
  checks=$((checks + 1))
  [ "${#argv[@]}" = 4 ] && [ "${argv[2]}" = "oci:build/image:$tag" ] && [[ "${argv[3]}" == docker://* ]] ||
    fail "README's push line is not 'skopeo copy oci:build/image:$tag docker://...': $push"
  pushed_name=${argv[3]#docker://}
  skopeo copy "oci:$TMP/image:$tag" "oci:$TMP/pushed:$tag" >"$TMP/push.out" 2>"$TMP/push.err"
  rc=$?
  expect_rc push 0
  unpack pushed "$TMP/pushed"
  expect_rc pushed 0
  checks=$((checks + 1))
  cmp -s "$GD" "$TMP/pushed.bundle/rootfs/usr/local/bin/gpudoctor" || fail "the copied image's binary differs"
  # The docker-archive line, as written (run in $TMP/archive, the layout's path moved there):
  # an archive `docker load` reads, tagged as it says, holding the binary.
  archive=$(grep -m1 '^skopeo copy oci:build/image:[^ ]* docker-archive:' <<<"$blocks")
  checks=$((checks + 1))
  if [ -z "$archive" ]; then
    fail "README's \"### Container image\" lacks the 'skopeo copy ... docker-archive:' line"
  else
    mkdir -p "$TMP/archive/build"
    cp -r "$TMP/image" "$TMP/archive/build/image"
    read -r -a argv <<<"$archive"
    (cd "$TMP/archive" && "${argv[@]}") >"$TMP/archive.out" 2>"$TMP/archive.err"
    rc=$?
    expect_rc archive 0
    file=${argv[3]#docker-archive:}
    name=${file#*:}
    file=${file%%:*}
    got=$(cd "$TMP/archive" && python3 -c 'import json, sys, tarfile
t = tarfile.open(sys.argv[1])
m = json.load(t.extractfile("manifest.json"))
layer = tarfile.open(fileobj=t.extractfile(m[0]["Layers"][0]))
print(" ".join(m[0]["RepoTags"]), " ".join(sorted(n for n in layer.getnames() if not layer.getmember(n).isdir())))' "$file" 2>&1)
    checks=$((checks + 1))
    [ "$got" = "docker.io/library/$name usr/local/bin/gpudoctor usr/share/doc/gpudoctor/LICENSE" ] ||
      fail "archive: holds '$got', expected the tag $name and the binary and LICENSE"
  fi
  # The Dockerfile: FROM the pushed name AS a stage, then COPY --from= that stage.
  from=$(grep -m1 -E '^FROM [^ ]+ AS [a-z]+$' <<<"$blocks")
  copy=$(grep -m1 '^COPY --from=' <<<"$blocks")
  checks=$((checks + 1))
  read -r _ from_image _ stage <<<"$from"
  read -r _ copy_from copy_src copy_dst <<<"$copy"
  if [ "$from_image" != "$pushed_name" ] || [ "$copy_from" != "--from=$stage" ]; then
    fail "README's Dockerfile does not copy from the image its push line names ($pushed_name): '$from' / '$copy'"
  elif [ ! -x "$rootfs$copy_src" ] || [ ! -f "$rootfs$copy_src" ] || [ -z "$copy_dst" ]; then
    fail "README's COPY --from= takes $copy_src, which the image does not hold as a program"
  fi
fi
command -v podman >/dev/null || command -v buildah >/dev/null || command -v docker >/dev/null ||
  echo "NOTE: no podman, buildah or docker here: README's Dockerfile was checked, not built"

finish
