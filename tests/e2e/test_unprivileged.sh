# Run as an ordinary user (setpriv, uid/gid 65534), gpudoctor finishes, says which facts need
# root, and claims nothing false: every fact it states is what root sees too, unless it is about
# the user running it (identity, device-node access, the Python a plain python3 runs for that
# user), or it became "unknown" with the reason.
source "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  echo "SKIP: needs root and setpriv to run as another user"
  exit 125
fi
# The binary must be reachable by the other user: copy it where everyone may run it.
cp "$GD" "$TMP/gpudoctor" && chmod 755 "$TMP" "$TMP/gpudoctor"
cd "$TMP" || exit 1

facts() {  # the -v facts as "name = value", sources left out
  grep -E '^  [a-z][a-z0-9_.*-]* = ' | sed -E 's/^  //; s/  \([^()]*(\([^()]*\)[^()]*)*\)$//' | sort
}
"$TMP/gpudoctor" --no-cuda -v >"$TMP/root.out" 2>"$TMP/root.err"
rc=$?
sanitizer_clean root
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "as root: exit $rc: $(head -5 "$TMP/root.err")"
facts <"$TMP/root.out" >"$TMP/root.facts"
# Nothing to compare against would compare nothing: root's run must state the facts of every layer.
checks=$((checks + 1))
[ "$(wc -l <"$TMP/root.facts")" -ge 100 ] || fail "as root: only $(wc -l <"$TMP/root.facts") facts in -v: $(head -c 300 "$TMP/root.out")"
for name in host.uid pci.any_blackwell kmod.nvidia.loaded lib.ldcache.readable env.ld_library_path; do
  checks=$((checks + 1))
  grep -qE "^${name//./\\.} = " "$TMP/root.facts" || fail "as root: no fact $name in -v"
done
setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/gpudoctor" --no-cuda -v >"$TMP/user.out" 2>"$TMP/user.err"
rc=$?
sanitizer_clean user
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "as uid 65534: exit $rc: $(head -5 "$TMP/user.err")"
facts <"$TMP/user.out" >"$TMP/user.facts"
checks=$((checks + 1))
[ "$(wc -l <"$TMP/user.facts")" -ge 100 ] || fail "as uid 65534: only $(wc -l <"$TMP/user.facts") facts in -v"

# Facts about the user, not the host: they may rightly differ (the limits layer's capability and
# locked-memory limit are the running process's own; NCCL reads the user's ~/.nccl.conf).
user_dependent='^(host\.uid|dev\.(eacces_nodes|eperm_nodes|gpu_nodes_denied|[a-z_]+\.open)|limits\.(cap_ipc_lock|memlock\.)|py\.|torch\.|wheels\.|ml\.|ext\.|env\.nccl_conf\.)'
while IFS= read -r line; do
  name=${line%% = *}
  value=${line#* = }
  root_line=$(grep -F -- "$name = " "$TMP/root.facts" | grep -E "^${name//./\\.} = " | head -n 1)
  [ "$root_line" = "$line" ] && continue
  [[ "$value" == unknown* ]] && continue
  [[ "$name" =~ $user_dependent ]] && continue
  checks=$((checks + 1))
  fail "as uid 65534: '$line' but as root: '${root_line:-(no such fact)}'"
done <"$TMP/user.facts"

# Where the kernel log needs root, the report says so rather than "no errors".
if grep -q '^klog.readable = true' "$TMP/root.facts" && ! grep -q '^klog.readable = true' "$TMP/user.facts"; then
  checks=$((checks + 1))
  grep -qE 'Kernel log: not read: needs root' "$TMP/user.out" || fail "the kernel log line does not say it needs root"
fi
checks=$((checks + 1))
finish
