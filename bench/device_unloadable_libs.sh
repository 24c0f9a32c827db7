#!/usr/bin/env bash
# Driver libraries that are there but cannot be loaded (issue 23, item 4), on the real H200: for
# libcuda.so.1, libnvidia-ml.so.1 and libnvidia-ptxjitcompiler.so.1, the file the loader really
# uses (LD_LIBRARY_PATH first, then ldconfig -p, links followed) gets an empty file bind-mounted
# over it in a private mount namespace, and gpudoctor reports (text, --json, and the node health
# check's npd line), each with its exit code. Nothing outside that namespace is changed: the empty
# file and the binary's copy live under /tmp, the mount goes away with the namespace.
#   bash bench/device_unloadable_libs.sh   (repository root, the binary at build/gpudoctor; as root)
# Results in $OUT/unloadable: <lib>.file.txt (which file, its size, the dlopen of an empty one),
# <lib>.txt, <lib>.json, <lib>.npd.txt, and healthy.* for the untouched host.
set -u
R=${OUT:?set OUT}/unloadable
mkdir -p "$R" /tmp/gd-unloadable
cp build/gpudoctor /tmp/gd-unloadable/gpudoctor && chmod 755 /tmp/gd-unloadable/gpudoctor
GD=/tmp/gd-unloadable/gpudoctor
EMPTY=/tmp/gd-unloadable/empty
: > "$EMPTY"

# The three reports of one state of the host; ARGS run before gpudoctor inside the namespace.
reports() {  # NAME SETUP-COMMANDS
  local name=$1 setup=$2
  timeout 200 unshare -m --propagation private sh -c "
    $setup
    timeout 60 $GD --color never > $R/$name.txt 2>&1; echo \"exit \$?\" >> $R/$name.txt
    timeout 60 $GD --json --no-capture > $R/$name.json 2> $R/$name.json.stderr; echo \"exit \$?\" > $R/$name.json.exit
    timeout 60 $GD --scope node --format npd > $R/$name.npd.txt 2>&1; echo \"exit \$?\" >> $R/$name.npd.txt
  "
  echo "namespace exit $?" >> "$R/$name.txt"
}

# The file dlopen("SONAME") maps: the first LD_LIBRARY_PATH folder holding it, else ld.so.cache's
# x86-64 entry, else its first entry; every link followed.
real_file() {  # SONAME
  local soname=$1 dir path
  local IFS=:
  for dir in ${LD_LIBRARY_PATH:-}; do
    if [ -n "$dir" ] && [ -e "$dir/$soname" ]; then readlink -f "$dir/$soname"; return; fi
  done
  unset IFS
  path=$(ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64/ {print $NF; exit}')
  [ -n "$path" ] || path=$(ldconfig -p | awk -v s="$soname" '$1 == s {print $NF; exit}')
  [ -n "$path" ] && readlink -f "$path"
}

reports healthy ":"
for soname in libcuda.so.1 libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1; do
  name=${soname%.so.1}
  real=$(real_file "$soname")
  {
    echo "soname: $soname"
    echo "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-}"
    ldconfig -p | grep -F "$soname" || echo "(not in ldconfig -p)"
    if [ -z "$real" ] || [ ! -f "$real" ]; then echo "no file for $soname: skipped"; continue; fi
    echo "real file: $real ($(stat -c %s "$real") bytes)"
  } > "$R/$name.file.txt" 2>&1
  [ -n "$real" ] && [ -f "$real" ] || continue
  # What the loader itself says about the empty file (python's ctypes dlopen), for the report's
  # comparison with the helper's dlerror.
  timeout 60 unshare -m --propagation private sh -c "
    mount --bind $EMPTY $real && ls -lL $real && python3 -c 'import ctypes; ctypes.CDLL(\"$soname\")' 2>&1 | tail -1
  " >> "$R/$name.file.txt" 2>&1
  reports "$name" "mount --bind $EMPTY $real || exit 97"
done
# The host after the runs: the real files are untouched (their sizes again).
for soname in libcuda.so.1 libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1; do
  real=$(real_file "$soname"); [ -n "$real" ] && echo "$real $(stat -c %s "$real")"
done > "$R/after.txt" 2>&1
ls -la "$R"
