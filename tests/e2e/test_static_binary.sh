# The shipped binary is fully static and small: no interpreter, no shared libraries.
source "$(dirname "$0")/lib.sh"

checks=$((checks + 1))
if readelf -lW "$GD" | grep -q "INTERP"; then fail "binary has a PT_INTERP program header"; fi
checks=$((checks + 1))
if readelf -dW "$GD" | grep -q "(NEEDED)"; then fail "binary has DT_NEEDED entries: $(readelf -dW "$GD" | grep NEEDED)"; fi
checks=$((checks + 1))
size=$(stat -c %s "$GD")
[ "$size" -le $((3 * 1024 * 1024)) ] || fail "binary is $size bytes, the limit is 3 MiB"
checks=$((checks + 1))
readelf -SW "$GD" | grep -q "\.symtab" && fail "binary is not stripped"
echo "size: $size bytes"
finish
