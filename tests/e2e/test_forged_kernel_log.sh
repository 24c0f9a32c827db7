# Issue 24 item 10: where gpudoctor reads a syslog file instead of /dev/kmsg, a line any local
# user can write (`logger -t kernel "NVRM: Xid ... 79 ..."`) must not become an Xid 79 or a
# fallen-off-bus GPU (a node fault). Each --root tree below holds the same Xid 79 line:
#  (i) in a world-writable kern.log, (ii) in a kern.log owned by a user, (iii) in a root-owned
#  mixed /var/log/syslog in rsyslog's default file format (no facility recorded), (iv) in a
#  root-owned mixed file whose <PRI> says user.err (what logger sends for -p kern.err), (v) in a
#  root-owned kern.log inside a /var/log that a users' group can write: none may report it; and
#  in a root-owned kern.log, or a root-owned file whose <PRI> says kern, it still is reported.
# Then the real-daemon proof: a private rsyslogd (its own config, socket and output files in a
# temporary folder, no kernel input, the host's logging untouched) receives the line from
# `logger -u SOCKET -t kernel -p kern.err` run as nobody, and gpudoctor reads the files it wrote.
source "$(dirname "$0")/lib.sh"

XID="NVRM: Xid (PCI:0000:00:06): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
# The bytes rsyslog 8.2302 writes for logger's line in RSYSLOG_FileFormat (Debian 12's default)
# and in RSYSLOG_SyslogProtocol23Format; the kernel's own line in the latter has <4> (kern.warning).
FILE_FORMAT="2026-12-02T04:51:04.799624+00:00 gpu1 kernel: $XID"
PROTO23_LOGGER="<11>1 2026-12-02T04:51:04.799624+00:00 gpu1 kernel - - -  $XID"
PROTO23_KERNEL="<4>1 2026-12-02T04:51:04.799624+00:00 gpu1 kernel - - -  $XID"

# tree NAME: a --root tree whose folders are root's and 0755 (as on a host), with passwd/group.
make_tree() {
  local root=$TMP/$1
  mkdir -p "$root/var/log" "$root/etc" "$root/dev"
  chmod 0755 "$root" "$root/var" "$root/var/log" "$root/etc"
  printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nadm:x:4:\nusers:x:100:\n' >"$root/etc/group"
  echo "$root"
}

# log_file TREE PATH MODE OWNER LINE: PATH in TREE holding LINE.
log_file() {
  printf '%s\n' "$5" >"$1$2"
  chmod "$3" "$1$2"
  chown "$4" "$1$2"
}

# not_reported NAME: the --json run NAME has no Xid and no fallen-off-bus GPU, and says why.
not_reported() {
  expect_json "$1" '[f["id"] for f in r["findings"] if f["id"].startswith("xid.")]' "[]"
  expect_json "$1" 'r["facts"]["klog.fallen_off_bus"]["state"]' "unknown"
  expect_json "$1" 'r["facts"].get("klog.xid.79", {}).get("state")' "None"
}

# reported NAME: the run NAME reports the GPU that fell off the bus.
reported() {
  expect_json "$1" '[f["id"] for f in r["findings"] if f["id"] == "xid.fallen-off-bus"]' "['xid.fallen-off-bus']"
  expect_fact "$1" klog.fallen_off_bus_gpus '["0000:00:06.0"]'
}

if [ "$(id -u)" != 0 ]; then
  skip "needs root to give the trees' files their owners"
  finish
fi

# (i) world-writable kern.log: anyone could have written any line.
root=$(make_tree world)
log_file "$root" /var/log/kern.log 0666 0:0 "$FILE_FORMAT"
run_gd world --root "$root" --json
not_reported world
expect_json world 'r["facts"]["klog.source_trust"]["value"]' "untrusted: /var/log/kern.log is world-writable (mode 0666)"
run_gd world_text --root "$root"
expect_out world_text "Kernel log: not used: /var/log/kern.log untrusted: /var/log/kern.log is world-writable"
expect_no_out world_text "fallen off the bus"

# (ii) kern.log owned by a user (nobody).
root=$(make_tree user)
log_file "$root" /var/log/kern.log 0644 65534:65534 "$FILE_FORMAT"
run_gd user --root "$root" --json
not_reported user
expect_json user 'r["facts"]["klog.source_trust"]["value"]' \
  "untrusted: /var/log/kern.log is owned by uid 65534 (nobody), not root or the syslog user"

# (iii) root-owned mixed /var/log/syslog in RSYSLOG_FileFormat: the kernel's line and logger's
# are the same bytes there.
root=$(make_tree mixed)
log_file "$root" /var/log/syslog 0640 0:4 "$FILE_FORMAT"
run_gd mixed --root "$root" --json
not_reported mixed
expect_json mixed 'r["facts"]["klog.source_trust"]["value"].startswith("untrusted: /var/log/syslog takes every program")' "True"
# ... and a health check does not fail the node for it.
run_gd mixed_node --root "$root" --scope node --json
not_reported mixed_node

# (iv) root-owned mixed file that records the facility: logger's <11> (user.err) is left out.
root=$(make_tree proto_user)
log_file "$root" /var/log/syslog 0640 0:4 "$PROTO23_LOGGER"
run_gd proto_user --root "$root" --json
expect_json proto_user '[f["id"] for f in r["findings"] if f["id"].startswith("xid.")]' "[]"
expect_fact proto_user klog.fallen_off_bus false
expect_json proto_user '"of another facility left out" in r["facts"]["klog.source_trust"]["value"]' "True"

# (v) root-owned kern.log in a /var/log that group users can write (and so replace the file in).
root=$(make_tree folder)
log_file "$root" /var/log/kern.log 0640 0:4 "$FILE_FORMAT"
chgrp 100 "$root/var/log"
chmod 0775 "$root/var/log"
run_gd folder --root "$root" --json
not_reported folder
expect_json folder 'r["facts"]["klog.source_trust"]["value"]' \
  "untrusted: /var/log is group-writable by gid 100 (users) (mode 0775)"

# Positive: the same line in a root-owned kern.log (kern.* only), and with <4> in a mixed file.
root=$(make_tree genuine)
log_file "$root" /var/log/kern.log 0640 0:4 "$FILE_FORMAT"
run_gd genuine --root "$root" --json
reported genuine
expect_fact genuine klog.source_trust '"trusted: only the logging daemon writes it, and it takes kern.* only"'
run_gd genuine_node --root "$root" --scope node --json
reported genuine_node
root=$(make_tree proto_kernel)
log_file "$root" /var/log/syslog 0640 0:4 "$PROTO23_KERNEL"
run_gd proto_kernel --root "$root" --json
reported proto_kernel

# --- the real daemon -----------------------------------------------------------------------
if ! command -v rsyslogd >/dev/null || ! command -v logger >/dev/null || ! command -v setpriv >/dev/null; then
  skip "no rsyslogd, logger or setpriv (toolchain/install.sh installs rsyslog)"
  finish
fi
root=$(make_tree rsyslog)
# logger (as nobody) must reach the socket: a folder others may enter but not write.
chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/rsyslog-run"
cat >"$TMP/rsyslog-run/rsyslog.conf" <<EOF
# No /dev/log, no kernel input (imklog would take the host's kernel messages): one private socket.
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="$TMP/rsyslog-run/log.sock")
global(workDirectory="$TMP/rsyslog-run")
kern.* action(type="omfile" file="$root/var/log/kern.log" template="RSYSLOG_FileFormat" fileCreateMode="0640")
*.*;auth,authpriv.none action(type="omfile" file="$root/var/log/syslog" template="RSYSLOG_FileFormat" fileCreateMode="0640")
*.* action(type="omfile" file="$TMP/rsyslog-run/proto23" template="RSYSLOG_SyslogProtocol23Format" fileCreateMode="0640")
EOF
rsyslogd -n -f "$TMP/rsyslog-run/rsyslog.conf" -i "$TMP/rsyslog-run/rsyslogd.pid" >"$TMP/rsyslog-run/out" 2>&1 &
rsyslog_pid=$!
trap 'kill "$rsyslog_pid" 2>/dev/null; wait "$rsyslog_pid" 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -S "$TMP/rsyslog-run/log.sock" ] && break; sleep 0.1; done
checks=$((checks + 1))
if [ -S "$TMP/rsyslog-run/log.sock" ]; then
  setpriv --reuid=65534 --regid=65534 --clear-groups \
    logger -u "$TMP/rsyslog-run/log.sock" -t kernel -p kern.err "$XID" || fail "logger as nobody failed"
  for _ in $(seq 50); do grep -qF "$XID" "$TMP/rsyslog-run/proto23" 2>/dev/null && break; sleep 0.1; done
  kill "$rsyslog_pid"; wait "$rsyslog_pid" 2>/dev/null
  # What the daemon wrote: logger's kern.err arrived as user.err, in the mixed file only.
  grep -qF "kernel: $XID" "$root/var/log/syslog" || fail "rsyslogd wrote no forged line: $(cat "$TMP/rsyslog-run/out")"
  checks=$((checks + 1))
  ! grep -qF "$XID" "$root/var/log/kern.log" 2>/dev/null || fail "logger's line reached kern.log"
  checks=$((checks + 1))
  grep -qE "^<11>1 .* kernel - - - +NVRM: Xid" "$TMP/rsyslog-run/proto23" ||
    fail "rsyslogd's RFC 5424 line is not user.err: $(cat "$TMP/rsyslog-run/proto23")"
  run_gd rsyslog --root "$root" --json
  not_reported rsyslog
  run_gd rsyslog_node --root "$root" --scope node --json
  not_reported rsyslog_node
  # The same daemon's RFC 5424 file as the host's syslog: read, trusted, and logger's line left out.
  rm -f "$root/var/log/syslog" "$root/var/log/kern.log"
  cp "$TMP/rsyslog-run/proto23" "$root/var/log/syslog"
  run_gd rsyslog_proto --root "$root" --json
  expect_json rsyslog_proto '[f["id"] for f in r["findings"] if f["id"].startswith("xid.")]' "[]"
  expect_fact rsyslog_proto klog.fallen_off_bus false
else
  fail "rsyslogd made no socket: $(cat "$TMP/rsyslog-run/out")"
fi
finish
