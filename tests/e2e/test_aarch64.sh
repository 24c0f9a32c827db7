# The aarch64 build runs under qemu-user: --version and a replay of a captured host.
source "$(dirname "$0")/lib.sh"

[ -n "$AARCH64" ] && [ -f "$AARCH64" ] || { echo "SKIP: no aarch64 binary (run make aarch64)"; exit 125; }
QEMU=$(command -v qemu-aarch64-static || command -v qemu-aarch64) || { echo "SKIP: qemu-user not installed"; exit 125; }
checks=$((checks + 1))
file "$AARCH64" | grep -q "ARM aarch64.*statically linked" || fail "$(file "$AARCH64")"
"$QEMU" "$AARCH64" --version >"$TMP/v.out" 2>"$TMP/v.err"; rc=$?
expect_rc v 0
expect_out v "^gpudoctor "
"$QEMU" "$AARCH64" replay "$HOSTS/h200-live-kernel.capture.json" >"$TMP/r.out" 2>"$TMP/r.err"; rc=$?
expect_rc r 0
expect_out r "^No problems found\.$"
"$QEMU" "$AARCH64" replay "$HOSTS/h200-live-stub-flag.capture.json" >"$TMP/s.out" 2>"$TMP/s.err"; rc=$?
expect_rc s 1
expect_out s "^error \[cuda.stub-libcuda\]"
finish
