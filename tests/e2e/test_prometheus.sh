# --format prometheus and --textfile (issue 15 item 3): every captured host's metrics pass Debian's
# promtool and the Python client's parser and are exactly README's contract; values on known hosts;
# the atomic textfile and its errors; README's cron and systemd recipes run as written; a real
# prometheus-node-exporter serves the file with node_textfile_scrape_error 0.
source "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3  # Debian's, with python3-prometheus-client (pyenv's python3 lacks it)
CHECK=$SRC/tests/e2e/prometheus_check.py
README=$SRC/README.md

if ! $PY -c 'import prometheus_client' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no prometheus_client (apt-get install python3-prometheus-client)"
  exit 125
fi
have_promtool=1
command -v promtool >/dev/null || { have_promtool=0; skip "no promtool (apt-get install prometheus)"; }

value() {  # NAME FAMILY [label=value ...] EXPECTED: the sample's value as the parser reads it
  checks=$((checks + 1))
  local name=$1 expected=${*: -1} got
  got=$($PY "$CHECK" value "$TMP/$name.out" "${@:2:$#-2}" 2>&1)
  [ "$got" = "$expected" ] || fail "$name: ${*:2:$#-2} is $got, expected $expected"
}
promtool_ok() {  # NAME: promtool check metrics (lint included) accepts the file
  [ "$have_promtool" = 1 ] || return 0
  checks=$((checks + 1))
  promtool check metrics <"$1" >"$TMP/promtool.txt" 2>&1 || fail "promtool check metrics $1: $(head -5 "$TMP/promtool.txt")"
}

# Every captured host: same exit code as the report, valid metrics, README's families and labels.
files=()
for capture in "$HOSTS"/*.capture.json; do
  name=prom_$(basename "$capture" .capture.json)
  run_gd "$name" replay "$capture" --format prometheus
  expected=$("$GD" replay "$capture" --json --no-capture >/dev/null 2>&1; echo $?)
  expect_rc "$name" "$expected"
  promtool_ok "$TMP/$name.out"
  files+=("$TMP/$name.out")
done
checks=$((checks + 1))
$PY "$CHECK" contract "$README" "${files[@]}" >"$TMP/contract.txt" 2>&1 || fail "contract: $(head -20 "$TMP/contract.txt")"

# A healthy H200: proven, one GPU in every layer, driver and version in _info.
n=prom_h200-live-kernel
value $n gpudoctor_gpu_proven index=0 bus_id=0000:00:06.0 uuid=GPU-9ab4aef6-ee71-1f77-870c-134f1b36436a 1.0
for source in pci cuda nvml; do value $n gpudoctor_gpus source=$source 1.0; done
value $n gpudoctor_cuda_init_result 0.0
value $n gpudoctor_findings severity=error 0.0
value $n gpudoctor_info version=0.1.0 driver=580.159.04 1.0
value $n gpudoctor_gpu_row_remap_pending index=0 0.0
value $n gpudoctor_gpu_ecc_uncorrectable_volatile_errors index=0 0.0
value $n gpudoctor_gpu_recovery_action index=0 0.0
# A stale uvm major: cuInit fails with 999, the GPU is not proven, the finding has its labels.
n=prom_lxc-stale-uvm-major
value $n gpudoctor_cuda_init_result 999.0
value $n gpudoctor_gpu_proven index=0 0.0
value $n gpudoctor_gpus source=cuda 0.0
value $n gpudoctor_finding id=devices.uvm-wrong-major severity=error area=devices scope=node action=fix-config 1.0
value $n gpudoctor_findings severity=error 1.0
# Eight GPUs, one stuck in the driver: that one is 0, the others 1.
n=prom_fake-eight-one-stuck
checks=$((checks + 1))
got=$($PY -c 'import json,sys; print(sorted(json.loads(sys.argv[1])))' "$($PY "$CHECK" labels "$TMP/$n.out" gpudoctor_gpu_proven index)")
[ "$got" = "['0', '1', '2', '3', '4', '5', '6', '7']" ] || fail "$n: gpu indexes $got"
checks=$((checks + 1))
[ "$(grep -c '^gpudoctor_gpu_proven{.*} 0$' "$TMP/$n.out")" = 1 ] && [ "$(grep -c '^gpudoctor_gpu_proven{.*} 1$' "$TMP/$n.out")" = 7 ] ||
  fail "$n: expected one GPU at 0 and seven at 1: $(grep '^gpudoctor_gpu_proven' "$TMP/$n.out")"
# The helper did not run here (a capture without its reply): unknown is NaN, not 0.
n=prom_upgrade-without-reboot
value $n gpudoctor_cuda_init_result nan
value $n gpudoctor_gpus source=cuda nan
value $n gpudoctor_gpu_proven index=0 nan
# A context that cannot be created is a failed GPU.
value prom_fake-ctxfail gpudoctor_gpu_proven index=0 0.0

# Label values from the host are escaped: a UUID with a quote, a backslash and a newline in the helper's reply
# comes back through both parsers unchanged, and the finding messages never appear.
$PY - "$HOSTS/h200-live-kernel.capture.json" "$TMP/evil.capture.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))
for run in c["helper_runs"]:
    # The helper's protocol escapes backslash (\\\\) and newline (\\n) in its values.
    run["reply"]["lines"] = [l.replace("GPU-9ab4aef6", 'GPU-"evil\\\\}\\n1') for l in run["reply"]["lines"]]
json.dump(c, open(sys.argv[2], "w"))
PYEOF
run_gd evil replay "$TMP/evil.capture.json" --format prometheus
promtool_ok "$TMP/evil.out"
checks=$((checks + 1))
got=$($PY "$CHECK" labels "$TMP/evil.out" gpudoctor_gpu_proven uuid)
[ "$got" = '["GPU-\"evil\\}\n1-ee71-1f77-870c-134f1b36436a"]' ] || fail "evil: uuid label read back as $got"
run_gd lxc_json replay "$HOSTS/lxc-stale-uvm-major.capture.json" --json --no-capture
message=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["message"][:40])' "$TMP/lxc_json.out")
checks=$((checks + 1))
! grep -qF "$message" "$TMP/prom_lxc-stale-uvm-major.out" || fail "a finding message appears in the metrics"

# --textfile: the file is the output, stdout stays empty, the exit code is the report's.
mkdir -p "$TMP/tf"
run_gd tf replay "$HOSTS/lxc-stale-uvm-major.capture.json" --textfile "$TMP/tf/gpudoctor.prom"
expect_rc tf 1
checks=$((checks + 1))
[ ! -s "$TMP/tf.out" ] && [ ! -s "$TMP/tf.err" ] || fail "tf: stdout/stderr not empty: $(head -3 "$TMP/tf.out" "$TMP/tf.err")"
checks=$((checks + 1))
[ "$(stat -c %a "$TMP/tf/gpudoctor.prom")" = 644 ] || fail "tf: mode $(stat -c %a "$TMP/tf/gpudoctor.prom")"
checks=$((checks + 1))
[ "$(ls -A "$TMP/tf")" = gpudoctor.prom ] || fail "tf: folder holds $(ls -A "$TMP/tf")"
cp "$TMP/tf/gpudoctor.prom" "$TMP/tf_file.out"
value tf_file gpudoctor_finding id=devices.uvm-wrong-major severity=error area=devices scope=node action=fix-config 1.0
promtool_ok "$TMP/tf/gpudoctor.prom"
# With a format asked for, stdout gets it too; the file is replaced, not appended to.
run_gd tf_npd replay "$HOSTS/h200-live-kernel.capture.json" --textfile "$TMP/tf/gpudoctor.prom" --format npd --scope node
expect_rc tf_npd 0
expect_out tf_npd '^no node problems found$'
cp "$TMP/tf/gpudoctor.prom" "$TMP/tf2.out"
value tf2 gpudoctor_findings severity=error 0.0
checks=$((checks + 1))
[ "$(grep -c '^# TYPE gpudoctor_info ' "$TMP/tf/gpudoctor.prom")" = 1 ] || fail "tf_npd: the file was not replaced whole"
# A folder that does not exist, a file where the folder should be, a read-only file system
# (/proc: root may write anywhere else): one error line naming the path, exit 2, nothing written.
for bad in "$TMP/missing/gpudoctor.prom" "$TMP/tf/gpudoctor.prom/x.prom" /proc/gpudoctor.prom "$TMP/tf"; do
  run_gd bad replay "$HOSTS/h200-live-kernel.capture.json" --textfile "$bad"
  expect_rc bad 2
  expect_err_lines bad 1
  expect_err bad "^gpudoctor: error: --textfile $bad: "
  checks=$((checks + 1))
  [ ! -s "$TMP/bad.out" ] || fail "bad $bad: stdout not empty"
done
checks=$((checks + 1))
[ ! -e "$TMP/missing" ] && [ "$(ls -A "$TMP/tf")" = gpudoctor.prom ] || fail "a failed --textfile left files: $(ls -A "$TMP/tf")"
# An ordinary user who may not write the folder is told so before the run starts.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  cp "$GD" "$TMP/gpudoctor" && chmod 755 "$TMP" "$TMP/gpudoctor" && mkdir -p "$TMP/rootonly" && chmod 755 "$TMP/rootonly"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/gpudoctor" --no-cuda --textfile "$TMP/rootonly/g.prom" \
    >"$TMP/user.out" 2>"$TMP/user.err"
  rc=$?
  sanitizer_clean user
  expect_rc user 2
  expect_err user "^gpudoctor: error: --textfile $TMP/rootonly/g.prom: cannot write in the folder $TMP/rootonly: EACCES"
  expect_err_lines user 1
else
  skip "the unwritable-folder case needs root and setpriv"
fi

# README's recipes, as written there, on this machine (the path of the file moved into $TMP).
recipe_command() {  # PYTHON-EXPR over the README's code blocks `blocks`: prints the command line
  $PY - "$README" "$1" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read().split("### Prometheus metrics", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
blocks = re.findall(r"```\n(.*?)```", text, re.S)
print(eval(sys.argv[2]))
PYEOF
}
cron=$(recipe_command '[l for b in blocks for l in b.splitlines() if l.startswith("*/5 ")][0]')
service=$(recipe_command '[b for b in blocks if "gpudoctor-metrics.service" in b][0]')
timer=$(recipe_command '[b for b in blocks if "gpudoctor-metrics.timer" in b][0]')
mkdir -p "$TMP/textfiles"
for recipe in cron systemd; do
  if [ $recipe = cron ]; then
    read -r -a words <<<"$cron"
    checks=$((checks + 1))
    [ "${#words[@]}" -gt 7 ] && [ "${words[5]}" = root ] || fail "cron line is not an /etc/cron.d line: $cron"
    line=${cron#* * * * * root }
  else
    line=$(sed -n 's/^ExecStart=//p' <<<"$service")
  fi
  line=${line//\/usr\/local\/bin\/gpudoctor/$GD}
  line=${line//\/var\/lib\/prometheus\/node-exporter/$TMP\/textfiles}
  rm -f "$TMP/textfiles/gpudoctor.prom"
  read -r -a argv <<<"$line"
  "${argv[@]}" >"$TMP/$recipe.out" 2>"$TMP/$recipe.err"
  rc=$?
  sanitizer_clean $recipe
  checks=$((checks + 1))
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$recipe: $line: exit $rc: $(head -3 "$TMP/$recipe.err")"
  checks=$((checks + 1))
  [ ! -s "$TMP/$recipe.out" ] || fail "$recipe: stdout not empty (cron would mail it): $(head -3 "$TMP/$recipe.out")"
  cp "$TMP/textfiles/gpudoctor.prom" "$TMP/${recipe}_file.out" 2>/dev/null
  value "${recipe}_file" gpudoctor_info version=0.1.0 1.0
  promtool_ok "$TMP/textfiles/gpudoctor.prom"
done
# systemd reads both units (the binary path moved to this build's).
if command -v systemd-analyze >/dev/null; then
  mkdir -p "$TMP/units"
  printf '%s\n' "${service//\/usr\/local\/bin\/gpudoctor/$GD}" >"$TMP/units/gpudoctor-metrics.service"
  printf '%s\n' "$timer" >"$TMP/units/gpudoctor-metrics.timer"
  checks=$((checks + 1))
  (cd "$TMP/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
    ./gpudoctor-metrics.timer ./gpudoctor-metrics.service) >"$TMP/verify.txt" 2>&1 ||
    fail "systemd-analyze verify: $(head -5 "$TMP/verify.txt")"
else
  skip "no systemd-analyze to verify the units"
fi

# node_exporter's textfile collector serves the file: the gpudoctor families are there, with NaN
# samples too, and node_textfile_scrape_error is 0.
if command -v prometheus-node-exporter >/dev/null && command -v curl >/dev/null; then
  port=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$TMP/collector"
  prometheus-node-exporter --web.listen-address=127.0.0.1:$port --collector.disable-defaults --collector.textfile \
    --collector.textfile.directory="$TMP/collector" >"$TMP/exporter.log" 2>&1 &
  exporter=$!
  trap 'kill $exporter 2>/dev/null; wait $exporter 2>/dev/null; rm -rf "$TMP"' EXIT
  for capture in h200-live-kernel lxc-stale-uvm-major upgrade-without-reboot; do
    run_gd "ne_$capture" replay "$HOSTS/$capture.capture.json" --textfile "$TMP/collector/gpudoctor.prom"
    ok=0
    for _ in $(seq 50); do
      curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/scrape_$capture.out" 2>/dev/null && { ok=1; break; }
      sleep 0.1
    done
    checks=$((checks + 1))
    [ $ok = 1 ] || { fail "node_exporter on port $port did not answer: $(tail -3 "$TMP/exporter.log")"; break; }
    value "scrape_$capture" node_textfile_scrape_error 0.0
    # Every family the file has samples of is served (node_exporter drops a family without samples,
    # such as gpudoctor_finding on a healthy host).
    for family in $(sed -n 's/^\(gpudoctor_[a-z0-9_]*\)[{ ].*/\1/p' "$TMP/collector/gpudoctor.prom" | sort -u); do
      checks=$((checks + 1))
      grep -q "^# TYPE $family gauge" "$TMP/scrape_$capture.out" || fail "scrape $capture: no $family"
    done
    checks=$((checks + 1))
    [ "$(grep -c '^gpudoctor_' "$TMP/scrape_$capture.out")" = "$(grep -c '^gpudoctor_' "$TMP/collector/gpudoctor.prom")" ] ||
      fail "scrape $capture: $(grep -c '^gpudoctor_' "$TMP/scrape_$capture.out") gpudoctor samples served, the file has $(grep -c '^gpudoctor_' "$TMP/collector/gpudoctor.prom")"
  done
  value scrape_lxc-stale-uvm-major gpudoctor_finding id=devices.uvm-wrong-major severity=error area=devices scope=node action=fix-config 1.0
  value scrape_upgrade-without-reboot gpudoctor_gpu_proven index=0 nan
  kill $exporter; wait $exporter 2>/dev/null
else
  skip "no prometheus-node-exporter or curl (apt-get install prometheus-node-exporter curl)"
fi
# Peer-to-peer from the helper's pair proof (issue 26): with the fake libcuda of 3 GPUs whose copy
# 0 -> 2 is silently dropped and 1 -> 0 has no peer access, that pair is 0, the proven ones 1, and
# the pair without access has no sample.
if [ -f "$FAKES/libcuda.so.1" ] && { [ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ]; }; then
  FAKE_CUDA_DEVICE_COUNT=3 FAKE_CUDA_PEER_DROP_0_2=1 FAKE_CUDA_PEER_ACCESS_1_0=0 \
    run_gd p2p --libcuda "$FAKES/libcuda.so.1" --libnvml "$FAKES/libnvidia-ml.so.1" --format prometheus
  promtool_ok "$TMP/p2p.out"
  value p2p gpudoctor_p2p_pair_ok a=0 b=2 0.0
  value p2p gpudoctor_p2p_pair_ok a=0 b=1 1.0
  value p2p gpudoctor_p2p_pair_ok a=2 b=1 1.0
  checks=$((checks + 1))
  ! grep -q 'gpudoctor_p2p_pair_ok{a="1",b="0"}' "$TMP/p2p.out" || fail "p2p: a pair without peer access has a sample"
  checks=$((checks + 1))
  $PY "$CHECK" contract "$README" "$TMP/p2p.out" >"$TMP/contract.txt" 2>&1 || fail "p2p contract: $(head -20 "$TMP/contract.txt")"
else
  skip "no fake libcuda or no glibc loader: the pair metrics are not run"
fi
finish
