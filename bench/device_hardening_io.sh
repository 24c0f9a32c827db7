#!/usr/bin/env bash
# Issue 24 items 3, 7, 8, 13 on the real H200: --textfile into a node_exporter-style folder
# still works (a regular file, mode 0644, the finding metrics of this host, no temporary left)
# and replaces an old file; /dev/null, a symlink and a FIFO as --textfile are refused and left
# as they were; SIGTERM during the write leaves nothing; an empty --root exits 2; > /dev/full
# exits 2; and under ulimit -n 10 the real libcuda's helper says which limit to raise. Nothing
# of the GPU's settings is changed. Results in $OUT/hardening_io (summary.txt first).
#   bash bench/device_hardening_io.sh   (from the repository, the binary at build/gpudoctor)
set -u
R=$OUT/hardening_io; mkdir -p $R
GD=$PWD/build/gpudoctor
TF=/tmp/gd-textfile; rm -rf $TF; mkdir -p $TF
S=$R/summary.txt; : >$S
say() { echo "$*" | tee -a $S; }
run() {  # NAME ARGS...: stdout in NAME.txt, stderr in NAME.err, exit code in NAME.exit
  local name=$1; shift
  timeout 120 "$@" >$R/$name.txt 2>$R/$name.err; echo $? >$R/$name.exit
  say "$name: exit $(cat $R/$name.exit); stderr: $(head -c 300 $R/$name.err | tr '\n' ' ')"
}
run healthy $GD --color never
echo old >$TF/gpudoctor.prom
run textfile $GD --textfile $TF/gpudoctor.prom
say "textfile: $(stat -c '%F %a %s bytes' $TF/gpudoctor.prom); leftovers: '$(ls -A $TF | grep -v '^gpudoctor.prom$' | tr '\n' ' ')'"
grep -E '^gpudoctor_(info|finding|gpus|up)' $TF/gpudoctor.prom | head -20 >$R/textfile-head.txt
cp $TF/gpudoctor.prom $R/gpudoctor.prom
before=$(stat -c '%F %i %t:%T' /dev/null)
run textfile-devnull $GD --no-cuda --textfile /dev/null
say "  /dev/null before: $before; after: $(stat -c '%F %i %t:%T' /dev/null)"
ln -s gpudoctor.prom $TF/link.prom; mkfifo $TF/fifo.prom
run textfile-symlink $GD --no-cuda --textfile $TF/link.prom
run textfile-fifo $GD --no-cuda --textfile $TF/fifo.prom
say "  after: link $(stat -c %F $TF/link.prom), fifo $(stat -c %F $TF/fifo.prom)"
if command -v strace >/dev/null; then
  echo old >$TF/sig.prom
  timeout 120 strace -qq -o /dev/null -e trace=fsync -e inject=fsync:signal=SIGTERM:when=1 \
    $GD --textfile $TF/sig.prom >/dev/null 2>$R/textfile-sigterm.err
  say "textfile-sigterm: exit $?; sig.prom: '$(cat $TF/sig.prom)'; leftovers: '$(ls -A $TF | grep '^\.' | tr '\n' ' ')'"
else
  say "textfile-sigterm: no strace on this machine"
fi
mkdir -p /tmp/gd-empty-root
run root-empty $GD --root /tmp/gd-empty-root
timeout 120 $GD --json >/dev/full 2>$R/full.err; say "full: exit $?; stderr: $(cat $R/full.err)"
timeout 120 bash -c 'ulimit -n 10; exec "$@"' _ $GD --color never >$R/ulimit10.txt 2>$R/ulimit10.err
say "ulimit10: exit $?; $(grep -m2 -E 'too low|exec-failed' $R/ulimit10.txt | tr '\n' ' ')"
cat $S
