# Issue 24, what the binary does with its own input and output (items 3, 7, 8, 13):
# --textfile writes only a regular file and leaves no temporary behind, even when a signal ends
# the write; an empty, unreadable or non-folder --root is an error (exit 2); a report that
# cannot be written to stdout is an error (exit 2); a helper that cannot start says why.
source "$(dirname "$0")/lib.sh"

CAPTURE=$HOSTS/h200-live-kernel.capture.json
[ -f "$CAPTURE" ] || { echo "no $CAPTURE"; exit 1; }

# kind_inode PATH: the file type and inode of PATH itself (a symlink is not followed).
kind_inode() { stat -c '%F %i' -- "$1" 2>&1; }

# leftovers DIR: temporary files (.NAME.XXXXXX) left in DIR.
leftovers() { find "$1" -maxdepth 1 -name '.*.??????' -printf '%f ' 2>/dev/null; }

# refused NAME TARGET WHY: --textfile TARGET is refused with exit 2, one error line naming it and
# saying WHY, and TARGET is the same file as before (type and inode), with no temporary beside it.
refused() {
  local name=$1 target=$2 why=$3 before after
  before=$(kind_inode "$target")
  run_gd "$name" replay "$CAPTURE" --textfile "$target"
  expect_rc "$name" 2
  expect_err "$name" "^gpudoctor: error: --textfile $target: .*$why"
  expect_err_lines "$name" 1
  after=$(kind_inode "$target")
  checks=$((checks + 1))
  [ "$before" = "$after" ] || fail "$name: $target was '$before', is now '$after'"
  checks=$((checks + 1))
  [ -z "$(leftovers "$(dirname "$target")")" ] || fail "$name: left $(leftovers "$(dirname "$target")")"
}

# --- item 3: --textfile writes only a regular file ------------------------------------------
mkdir -p "$TMP/tf"
mkfifo "$TMP/tf/fifo.prom"
refused tf_fifo "$TMP/tf/fifo.prom" "not a regular file \(a FIFO\)"
echo "the collector's file" >"$TMP/tf/real.prom"
ln -s real.prom "$TMP/tf/link.prom"
refused tf_symlink "$TMP/tf/link.prom" "not a regular file \(a symbolic link\)"
checks=$((checks + 1))
[ "$(cat "$TMP/tf/real.prom")" = "the collector's file" ] || fail "tf_symlink: the link's target changed"
ln -s /nonexistent/gpudoctor.prom "$TMP/tf/dangling.prom"
refused tf_dangling "$TMP/tf/dangling.prom" "not a regular file \(a symbolic link\)"
mkdir "$TMP/tf/dir.prom"
refused tf_dir "$TMP/tf/dir.prom" "is a folder, not a file"
if [ "$(id -u)" = 0 ]; then
  # A device node of our own first (/dev/null's numbers): a binary that replaced it would replace
  # only this copy. The system's /dev/null is tried only once that copy was refused.
  mknod "$TMP/tf/null" c 1 3
  before_failures=$failures
  refused tf_devnode "$TMP/tf/null" "not a regular file \(a character device\)"
  if [ "$failures" = "$before_failures" ] && [ "$(stat -c %F "$TMP/tf/null")" = "character special file" ]; then
    refused tf_dev_null /dev/null "not a regular file \(a character device\)"
    checks=$((checks + 1))
    [ "$(stat -c '%F %t:%T' /dev/null)" = "character special file 1:3" ] || fail "/dev/null is now $(stat -c '%F %t:%T' /dev/null)"
  else
    skip "--textfile /dev/null as root: a device node in $TMP was not refused, so the system's is not tried"
  fi
else
  skip "--textfile at a device node: mknod and /dev/null need root"
fi
# A regular file is still replaced, mode 0644, whatever the umask; nothing left beside it.
echo old >"$TMP/tf/ok.prom"
(umask 077 && "$GD" replay "$CAPTURE" --textfile "$TMP/tf/ok.prom" >"$TMP/tf_ok.out" 2>"$TMP/tf_ok.err")
rc=$?
sanitizer_clean tf_ok
expect_rc tf_ok 0
checks=$((checks + 1))
grep -q '^gpudoctor_info{' "$TMP/tf/ok.prom" && [ "$(stat -c %a "$TMP/tf/ok.prom")" = 644 ] ||
  fail "tf_ok: $(stat -c '%a %s' "$TMP/tf/ok.prom"): $(head -3 "$TMP/tf/ok.prom")"
checks=$((checks + 1))
[ -z "$(leftovers "$TMP/tf")" ] || fail "tf_ok: left $(leftovers "$TMP/tf")"

# A signal during the write removes the temporary file. strace delivers it deterministically
# as gpudoctor enters fsync(2): after the temporary file was created and written, before the
# rename. The process then dies of that signal (the handler re-raises it) and the old file stays.
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
  for sig in TERM INT HUP; do
    find "$TMP/tf" -maxdepth 1 -name '.*.??????' -delete
    echo old >"$TMP/tf/sig.prom"
    strace -qq -o /dev/null -e trace=fsync -e inject=fsync:signal=SIG$sig:when=1 \
      "$GD" replay "$CAPTURE" --textfile "$TMP/tf/sig.prom" >"$TMP/tf_$sig.out" 2>"$TMP/tf_$sig.err"
    rc=$?
    expect_rc "tf_$sig" $((128 + $(kill -l $sig)))
    checks=$((checks + 1))
    [ -z "$(leftovers "$TMP/tf")" ] || fail "tf_$sig: SIG$sig during the write left $(leftovers "$TMP/tf")"
    checks=$((checks + 1))
    [ "$(cat "$TMP/tf/sig.prom")" = old ] || fail "tf_$sig: the old file changed"
  done
else
  skip "a signal during the --textfile write: needs strace (with ptrace allowed)"
fi
# A file size limit makes write(2) fail half way (SIGXFSZ): an error, no temporary left.
find "$TMP/tf" -maxdepth 1 -name '.*.??????' -delete
echo old >"$TMP/tf/big.prom"
bash -c 'ulimit -f 1; exec "$@"' _ "$GD" replay "$CAPTURE" --textfile "$TMP/tf/big.prom" >"$TMP/tf_fsize.out" 2>"$TMP/tf_fsize.err"
rc=$?
sanitizer_clean tf_fsize
expect_rc tf_fsize 2
expect_err tf_fsize "^gpudoctor: error: --textfile $TMP/tf/big.prom: cannot write .*File too large"
checks=$((checks + 1))
[ -z "$(leftovers "$TMP/tf")" ] || fail "tf_fsize: left $(leftovers "$TMP/tf")"

# --- item 7: an empty, unreadable or non-folder --root is an error, not a healthy image -------
mkdir "$TMP/empty"
run_gd root_empty --root "$TMP/empty"
expect_rc root_empty 2
expect_err root_empty "^gpudoctor: error: --root $TMP/empty: the folder is empty"
expect_err_lines root_empty 1
expect_no_out root_empty "No problem found"
run_gd preflight_empty --root "$TMP/empty" --target-gpu H200 --target-driver 580.95.05
expect_rc preflight_empty 2
expect_err preflight_empty "^gpudoctor: error: --root $TMP/empty: the folder is empty"
echo x >"$TMP/plain"
run_gd root_file --root "$TMP/plain"
expect_rc root_file 2
expect_err root_file "^gpudoctor: error: --root $TMP/plain: not a folder"
expect_err_lines root_file 1
run_gd root_missing --root "$TMP/nope"
expect_rc root_missing 2
expect_err root_missing "^gpudoctor: error: --root $TMP/nope: .*No such file or directory"
# A folder holding only an empty folder is not empty: it is read (and what it lacks reported).
mkdir -p "$TMP/almost/etc"
run_gd root_almost --root "$TMP/almost"
checks=$((checks + 1))
[ "$rc" -le 1 ] || fail "root_almost: exit $rc: $(head -3 "$TMP/root_almost.err")"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  mkdir -p "$TMP/locked/etc" && echo x >"$TMP/locked/etc/os-release" && chmod 0300 "$TMP/locked"
  cp "$GD" "$TMP/gd-user" && chmod 755 "$TMP" "$TMP/gd-user"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/gd-user" --root "$TMP/locked" >"$TMP/root_unreadable.out" 2>"$TMP/root_unreadable.err"
  rc=$?
  sanitizer_clean root_unreadable
  expect_rc root_unreadable 2
  expect_err root_unreadable "^gpudoctor: error: --root $TMP/locked: cannot read the folder: .*Permission denied"
  expect_err_lines root_unreadable 1
  chmod 0755 "$TMP/locked"
else
  skip "an unreadable --root: needs root and setpriv to run as another user"
fi

# --- item 8: a report that cannot be written to stdout is an error --------------------------
if [ -w /dev/full ]; then
  full() {  # NAME ARGS...: gpudoctor ARGS > /dev/full exits 2 with one line saying so
    local name=$1; shift
    "$GD" "$@" >/dev/full 2>"$TMP/$name.err"
    rc=$?
    : >"$TMP/$name.out"
    sanitizer_clean "$name"
    expect_rc "$name" 2
    expect_err "$name" "^gpudoctor: error: writing .* to stdout: .*No space left on device"
    expect_err_lines "$name" 1
  }
  full full_text replay "$CAPTURE"
  full full_json replay "$CAPTURE" --json
  full full_npd replay "$CAPTURE" --format npd
  full full_prometheus replay "$CAPTURE" --format prometheus
  full full_markdown replay "$CAPTURE" --format markdown
  full full_live --no-cuda
  full full_root --root "$TMP/almost" --json
  "$GD" replay "$CAPTURE" --json >"$TMP/report.json" 2>/dev/null
  full full_fleet fleet "$TMP/report.json"
  full full_fleet_json fleet "$TMP/report.json" --json
  full full_diff diff "$TMP/report.json" "$CAPTURE"
  full full_diff_json diff "$TMP/report.json" "$CAPTURE" --json
  full full_rules rules
  full full_explain explain cuda.stub-libcuda
  full full_help --help
  full full_version --version
  # --textfile alone prints nothing on stdout: a full stdout is no error there.
  "$GD" replay "$CAPTURE" --textfile "$TMP/tf/quiet.prom" >/dev/full 2>"$TMP/full_quiet.err"
  rc=$?
  : >"$TMP/full_quiet.out"
  expect_rc full_quiet 0
  expect_err_lines full_quiet 0
else
  skip "writing to a full stdout: no writable /dev/full"
fi
# A closed stdout is an error too, once there is something to write.
"$GD" replay "$CAPTURE" >&- 2>"$TMP/closed.err"
rc=$?
: >"$TMP/closed.out"
expect_rc closed 2
expect_err closed "^gpudoctor: error: writing .* to stdout: .*Bad file descriptor"

# --- item 13: a helper that cannot start says why ---------------------------------------------
if [ -f "$FAKES/libcuda.so.1" ] && [ -f "$FAKES/libnvidia-ml.so.1" ]; then
  bash -c 'ulimit -n 10; exec "$@"' _ "$GD" --libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1" --json \
    >"$TMP/fd_limit.out" 2>"$TMP/fd_limit.err"
  rc=$?
  sanitizer_clean fd_limit
  checks=$((checks + 1))
  [ "$rc" -le 1 ] || fail "fd_limit: exit $rc: $(head -3 "$TMP/fd_limit.err")"
  expect_fact fd_limit cuda.helper.status '"exec-failed"'
  checks=$((checks + 1))
  reason=$(json_field fd_limit 'r["facts"]["cuda.init.result"].get("reason", "")' 2>&1)
  [[ "$reason" == *"fd limit 10 too low for the helper: raise ulimit -n"* ]] || fail "fd_limit: cuda.init.result's reason is '$reason'"
  checks=$((checks + 1))
  [[ "$reason" == *": Invalid argument; "* || "$reason" == *": Too many open files; "* ]] || fail "fd_limit: no errno in '$reason'"
  bash -c 'ulimit -n 10; exec "$@"' _ "$GD" --libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1" \
    >"$TMP/fd_limit_text.out" 2>"$TMP/fd_limit_text.err"
  rc=$?
  expect_out fd_limit_text "fd limit 10 too low for the helper: raise ulimit -n"
  # With enough descriptors the same fakes start.
  run_gd fd_enough --libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1" --json
  expect_no_out fd_enough "too low for the helper"
  checks=$((checks + 1))
  [ "$(json_field fd_enough 'r["facts"]["cuda.helper.status"]["value"]')" != exec-failed ] || fail "fd_enough: exec-failed"
else
  skip "the helper under ulimit -n 10: no fakes in $FAKES"
fi

finish
