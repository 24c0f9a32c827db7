#!/usr/bin/env bash
# Two gpudoctor binaries side by side on the device, alternating, N runs each of the full run and
# of --no-cuda: medians and the ratio new/old. Results in $OUT/old-vs-new.txt.
#   bash bench/device_old_vs_new.sh OLD NEW [N]   (N default 11)
set -u
OLD=$1; NEW=$2; N=${3:-11}
R=$OUT/old-vs-new.txt; : >$R
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for mode in full no-cuda; do
  extra=(); [ $mode = no-cuda ] && extra=(--no-cuda)
  : >/tmp/old.ms; : >/tmp/new.ms
  for i in $(seq $N); do
    ms $OLD --color never "${extra[@]}" >>/tmp/old.ms
    ms $NEW --color never "${extra[@]}" >>/tmp/new.ms
  done
  o=$(median </tmp/old.ms); n=$(median </tmp/new.ms)
  echo "$mode: old median ${o} ms ($(tr '\n' ' ' </tmp/old.ms)); new median ${n} ms ($(tr '\n' ' ' </tmp/new.ms)); new/old $(awk "BEGIN {printf \"%.3f\", $n / $o}")" | tee -a $R
done
