#!/usr/bin/env bash
# `gpudoctor fleet --json` against its yardsticks (issue 27 item 2): N reports of about 66-86 KB
# (replays of the captured ML host, one per node gpu1..gpuN, in a folder and as one JSON Lines
# stream on standard input), each run in the same loop as
#   - jq -c '[.run.host, .findings[0].id]' over the same files and stream (a JSON reader that
#     extracts two fields), and
#   - cat of the same files and stream (the page cache's speed: the MB/s ceiling).
# Medians of RUNS of wall seconds, CPU seconds (user + system: what a shared machine's load does
# not inflate) and peak RSS (/usr/bin/time), warm cache; the load average is printed first and
# last (the development machine is shared: compare only numbers of one run).
# Environment: JOBS="1 2" adds a row per --jobs value (default: only the default, all cores);
# OLD=path/to/another/gpudoctor adds its rows in the same loop (side by side with an older
# binary); JQ=0 leaves jq out (its runs are the longest).
# The reports are made under TMPDIR (default /tmp) and deleted at the end.
# Usage: bench/fleet_speed.sh path/to/gpudoctor [runs] [N...]   (default: 5 runs, 1000 10000)
# BASE=report.json uses that report for every node instead of the replayed ML host.
set -u
bin=$(realpath "${1:?usage: bench/fleet_speed.sh path/to/gpudoctor [runs] [N...]}")
runs=${2:-5}
shift $(($# >= 2 ? 2 : 1))
if [ $# -gt 0 ]; then counts=("$@"); else counts=(1000 10000); fi
build=$(dirname "$bin")
old=${OLD:+$(realpath "$OLD")}
jobs_list=(${JOBS:-default})
use_jq=${JQ:-1}
[ "$use_jq" = 0 ] || command -v jq >/dev/null || { echo "bench/fleet_speed.sh: needs jq (or JQ=0)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fleet-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BASE:-}" ]; then
  # BASE=report.json: the node report every node gets (a machine without the build tree, such as
  # the device machine, where it is that machine's own report).
  cp "$BASE" "$tmp/base.json"
else
  { cmake --build "$build" --target compose_capture >/dev/null &&
    bash "$(dirname "$0")/../tests/hosts/make_test_inputs.sh" "$build/tests/compose_capture" "$build/generated" >/dev/null; } \
    || { echo "bench/fleet_speed.sh: cannot make the captured hosts in $build/generated" >&2; exit 1; }
  "$bin" replay "$build/generated/tests/hosts/h200-live-ml.capture.json" --json --no-capture >"$tmp/base.json" 2>/dev/null
fi

median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
# one LABEL STDIN CMD: appends "LABEL wall_s cpu_s rss_kb" to $tmp/times
one() {
  local label=$1 input=$2
  shift 2
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$@" <"$input" >/dev/null 2>"$tmp/err" || { echo "failed: $label" >&2; cat "$tmp/err" >&2; }
  else  # wall and CPU from Python where GNU time is not installed; not the peak RSS (the forked
        # child's count includes Python's own pages), which reads n/a
    python3 -c 'import resource, subprocess, sys, time
t = time.perf_counter(); rc = subprocess.call(sys.argv[3:], stdin=open(sys.argv[1]), stdout=subprocess.DEVNULL, stderr=open(sys.argv[2], "w"))
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[2] + ".t", "w").write("%.2f %.2f %.2f -1\n" % (time.perf_counter() - t, u.ru_utime, u.ru_stime))
sys.exit(rc)' "$input" "$tmp/err" "$@" || { echo "failed: $label" >&2; cat "$tmp/err" >&2; }
    mv "$tmp/err.t" "$tmp/t"
  fi
  echo "$label $(awk '{ printf "%s %.2f %s", $1, $2 + $3, $4 }' "$tmp/t")" >>"$tmp/times"
}
jobs_args() { [ "$1" = default ] || echo "--jobs $1"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $runs runs per line, medians"
printf '| N | command | wall s | CPU s | MB/s | peak RSS MB |\n|---:|---|---:|---:|---:|---:|\n'
for n in "${counts[@]}"; do
  python3 - "$tmp/base.json" "$tmp/fleet$n" "$tmp/fleet$n.jsonl" "$n" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
with open(sys.argv[3], "w") as stream:
    for i in range(1, int(sys.argv[4]) + 1):
        r["run"]["host"] = "gpu%d" % i
        with open(os.path.join(sys.argv[2], "gpu%d.json" % i), "w") as f:
            json.dump(r, f, indent=1)
        stream.write(json.dumps(r) + "\n")
PY
  dir=$tmp/fleet$n
  jsonl=$tmp/fleet$n.jsonl
  mb_folder=$(du -sb "$dir" | awk '{print $1 / 1e6}')
  mb_stdin=$(stat -c %s "$jsonl" | awk '{print $1 / 1e6}')  # compact: smaller than the indented files
  : >"$tmp/times"
  for ((i = 0; i < runs; i++)); do
    for source in folder stdin; do
      if [ "$source" = folder ]; then input=/dev/null; path=$dir; else input=$jsonl; path=-; fi
      if [ "$source" = folder ]; then one "cat-folder" /dev/null bash -c "cat $dir/*.json"; else one "cat-stdin" "$jsonl" cat; fi
      for jobs in "${jobs_list[@]}"; do
        # shellcheck disable=SC2046
        one "gpudoctor-$source-jobs=$jobs" "$input" "$bin" fleet "$path" --json $(jobs_args "$jobs")
      done
      [ -z "$old" ] || one "old-gpudoctor-$source" "$input" "$old" fleet "$path" --json
      if [ "$use_jq" = 1 ]; then
        if [ "$source" = folder ]; then
          one "jq-folder" /dev/null bash -c "jq -c '[.run.host, .findings[0].id]' $dir/*.json"
        else
          one "jq-stdin" "$jsonl" jq -c '[.run.host, .findings[0].id]'
        fi
      fi
    done
  done
  for label in $(awk '!seen[$1]++ {print $1}' "$tmp/times"); do
    wall=$(awk -v l="$label" '$1 == l {print $2}' "$tmp/times" | median)
    cpu=$(awk -v l="$label" '$1 == l {print $3}' "$tmp/times" | median)
    rss=$(awk -v l="$label" '$1 == l {print $4}' "$tmp/times" | median)
    case $label in *stdin*) mb=$mb_stdin ;; *) mb=$mb_folder ;; esac
    printf '| %s | %s (%.0f MB) | %s | %s | %.0f | %s |\n' "$n" "$label" "$mb" "$wall" "$cpu" \
      "$(awk -v m="$mb" -v w="$wall" 'BEGIN {print (w > 0 ? m / w : 0)}')" \
      "$(awk -v k="$rss" 'BEGIN { if (k < 0) print "n/a"; else printf "%.1f", k / 1024 }')"
  done
  rm -rf "$dir" "$jsonl"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
