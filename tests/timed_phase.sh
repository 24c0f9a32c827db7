#!/usr/bin/env bash
# timed_phase.sh LOG NAME COMMAND...: runs COMMAND, then prints how long it took and appends the same
# line to LOG, so that `make test` ends with where its time went (issue 25 item 4: "measure the
# phases and say where the time went"). The exit status is COMMAND's.
log=$1
name=$2
shift 2
start=$(date +%s)
"$@"
status=$?
line=$(printf '%-26s %5d s%s' "$name" $(($(date +%s) - start)) "$([ $status -eq 0 ] || echo " (failed: exit $status)")")
mkdir -p "$(dirname "$log")"
echo "$line" >>"$log"
echo "make test: $line" >&2
exit $status
