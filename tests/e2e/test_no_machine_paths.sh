# No file of the tree names a folder of the machine it was made on (issue 25 item 3): not the
# checkout's absolute path, nor the build folder's, nor the fakes' (a capture made by running
# gpudoctor records the libraries it loaded and the folder it started in). Captures record the
# checkout as /src/gpudoctor instead (tests/hosts/README.md). Every tracked file is read (all of
# them when this is not a git checkout).
source "$(dirname "$0")/lib.sh"

src=$(cd "$SRC" && pwd -P)
build=$(cd "$(dirname "$GD")" && pwd -P)
fakes=$(cd "$FAKES" 2>/dev/null && pwd -P || echo "$FAKES")
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z) >"$TMP/files"
else
  (cd "$src" && find . -path ./.git -prune -o -path "./build*" -prune -o -type f -print0) >"$TMP/files"
fi
for folder in "$src" "$build" "$fakes"; do
  checks=$((checks + 1))
  # Only files that exist (a tracked file deleted in the work tree is not read).
  found=$(cd "$src" && xargs -0 grep -lIF -- "$folder" <"$TMP/files" 2>/dev/null | head -5)
  [ -z "$found" ] || fail "files name $folder, a folder of this machine: $(echo $found)"
done
echo "$(tr -cd '\0' <"$TMP/files" | wc -c) files read for $src, $build and $fakes"
finish
