# The shipped binary is fully static and small: no interpreter, no shared libraries.
source "$(dirname "$0")/lib.sh"

# Each check reads readelf's listing; a readelf that is missing or fails lists nothing, and an
# empty listing has no INTERP either: the listing itself must be there.
command -v readelf >/dev/null || { echo "SKIP: no readelf (binutils) to read the program headers"; exit 125; }
listing() {  # NAME OPTION: readelf OPTION of the binary in $TMP/NAME, which must have succeeded
  checks=$((checks + 1))
  readelf "$2" "$GD" >"$TMP/$1" 2>"$TMP/$1.err" || fail "readelf $2 $GD: $(head -3 "$TMP/$1.err")"
}
listing program -lW
checks=$((checks + 1))
grep -q 'Program Headers:' "$TMP/program" || fail "readelf -lW lists no program headers: $(head -3 "$TMP/program")"
checks=$((checks + 1))
grep -qE '^ +LOAD ' "$TMP/program" || fail "readelf -lW lists no LOAD segment"
checks=$((checks + 1))
if grep -q "INTERP" "$TMP/program"; then fail "binary has a PT_INTERP program header"; fi
listing dynamic -dW
checks=$((checks + 1))
if grep -q "(NEEDED)" "$TMP/dynamic"; then fail "binary has DT_NEEDED entries: $(grep NEEDED "$TMP/dynamic")"; fi
listing sections -SW
checks=$((checks + 1))
grep -qE '\] \.text ' "$TMP/sections" || fail "readelf -SW lists no .text section"
checks=$((checks + 1))
if grep -q "\.symtab" "$TMP/sections"; then fail "binary is not stripped"; fi
checks=$((checks + 1))
size=$(stat -c %s "$GD")
# The budget: 3.0 MiB at the pre-flight work (issue 18), with the embedded helper and rules, every
# renderer, fleet and diff; a jump past 4 MiB means something large was linked in by accident.
[ "$size" -le $((4 * 1024 * 1024)) ] || fail "binary is $size bytes, the limit is 4 MiB"
echo "size: $size bytes"
finish
