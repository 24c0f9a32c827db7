# deploy/slurm/gpudoctor-healthcheck under the real Slurm daemons (issue 15 item 4): slurmctld,
# slurmd and munged are started here as root on loopback, with the configuration in
# /etc/slurm/slurm.conf where every Slurm command looks (what was there is put back), and
# slurmd runs the script from a temporary folder with the binary under test beside it.
# README's recipes are what runs: its slurm.conf lines (the interval made short), its settings
# file and its srun sweep line, taken from README.md's "Fleets" section.
#  - this machine has no GPU: the node is drained with the gpudoctor reason (on a healthy GPU
#    host, where gpudoctor finds nothing, a captured broken host is replayed instead);
#  - the test hook replays a healthy H200: the node is undrained;
#  - README's srun line returns one report per task (the one-off sweep), and the fleet recipe's
#    srun --output block, run as written, leaves a report per node that gpudoctor fleet reads;
#  - an admin's drain stays, whatever gpudoctor finds; gpudoctor's own drain for an earlier
#    problem gets the current one as its reason;
#  - gpudoctor failing (a corrupt capture: exit 2) leaves the node as it is, drained or not;
#  - by hand: a timeout, a signal, output not in the npd form, no binary, where the binary is
#    looked for (beside, /usr/local/bin, PATH: in a mount namespace of its own), an unsafe or
#    refused configuration, --dry-run, a run without SLURMD_NODENAME, and UNDRAIN leaving a DOWN
#    node down.
# Every daemon is stopped and every file removed on every exit path.
source "$(dirname "$0")/lib.sh"
SCRIPT=$SRC/deploy/slurm/gpudoctor-healthcheck
HEALTHY=$HOSTS/h200-live-kernel.capture.json
INTERVAL=2  # HealthCheckInterval, seconds
README=$SRC/README.md

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (starts slurmctld, slurmd and munged)"; exit 125; }
missing=
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged scontrol srun; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
  # toolchain/install.sh installs them; on CI their absence is a broken machine, not a skip.
  if [ "${CI:-0}" = 1 ]; then echo "FAIL: CI=1 but not installed:$missing"; exit 1; fi
  echo "SKIP: not installed:$missing (toolchain/install.sh installs slurmctld slurmd slurm-client munge)"
  exit 125
fi

# README's recipes: the code blocks of its "### Slurm health check" and "### One-off sweep with
# srun" sections.
readme_blocks() {  # SECTION: that section's fenced blocks, each ended by a line "@@@"
  awk -v want="### $1" '
    !fenced && /^#+ / { inside = ($0 == want) }
    inside && /^```/ { fenced = !fenced; if (!fenced) print "@@@"; next }
    inside && fenced { print }' "$README"
}
hc_blocks=$(readme_blocks "Slurm health check")
conf_lines=$(grep -E '^HealthCheck[A-Za-z]+=' <<<"$hc_blocks")
readme_program=$(sed -n 's/^HealthCheckProgram=//p' <<<"$conf_lines")
settings=$(grep -E '^GPUDOCTOR_[A-Z_]+=' <<<"$hc_blocks")
srun_line=$(readme_blocks "One-off sweep with srun" | grep -m1 '^srun ')
checks=$((checks + 1))
if [ "$(wc -l <<<"$conf_lines")" != 3 ] || [ -z "$readme_program" ] || [ -z "$settings" ] || [ -z "$srun_line" ]; then
  fail "README.md's Fleets section lacks the slurm.conf lines, the settings or the srun line"
  printf '%s\n' "$hc_blocks" | sed 's/^/    /' | head -30
  finish
fi
checks=$((checks + 1))
grep -qx "install -m 0755 deploy/slurm/gpudoctor-healthcheck $readme_program" <<<"$hc_blocks" ||
  fail "README installs the script somewhere else than its HealthCheckProgram=$readme_program"

W=$(mktemp -d /tmp/gd-slurm.XXXXXX)
chmod 711 "$W"  # munged wants its socket's folders searchable by all
mkdir -p "$W/bin" "$W/state" "$W/spool" "$W/munge" "$W/saved"
chmod 711 "$W/munge"
cp "$SCRIPT" "$GD" "$W/bin/"
cp "$HEALTHY" "$W/healthy.json"
printf '{"schema_version": 1, "capture": ' >"$W/corrupt.json"
HC=$W/bin/gpudoctor-healthcheck
HCLOG=$W/hc.log
NODE=gdtest-$(uname -n | cut -d. -f1)

# What is put back: /etc/slurm/slurm.conf and /etc/default/gpudoctor (moved aside, restored);
# /etc/slurm itself if it had to be made; /dev/log only when this test made it.
made_etc_slurm=0
made_dev_log=0
[ -d /etc/slurm ] || { mkdir -p /etc/slurm && made_etc_slurm=1; }
[ -e /etc/slurm/slurm.conf ] && mv /etc/slurm/slurm.conf "$W/saved/slurm.conf"
[ -e /etc/default/gpudoctor ] && mv /etc/default/gpudoctor "$W/saved/default-gpudoctor"

stop_pidfile() {  # FILE: stop the daemon whose pid FILE holds, and wait for it
  local pid
  [ -s "$1" ] || return 0
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
}
cleanup() {
  stop_pidfile "$W/slurmd.pid"
  stop_pidfile "$W/slurmctld.pid"
  stop_pidfile "$W/munged.pid"
  [ -n "${syslog_pid:-}" ] && kill "$syslog_pid" 2>/dev/null && wait "$syslog_pid" 2>/dev/null
  [ "$made_dev_log" = 1 ] && rm -f /dev/log
  rm -f /etc/slurm/slurm.conf /etc/default/gpudoctor
  [ -e "$W/saved/slurm.conf" ] && mv "$W/saved/slurm.conf" /etc/slurm/slurm.conf
  [ -e "$W/saved/default-gpudoctor" ] && mv "$W/saved/default-gpudoctor" /etc/default/gpudoctor
  [ "$made_etc_slurm" = 1 ] && rmdir /etc/slurm 2>/dev/null
  rm -rf "$W" "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Two free loopback ports: nothing answers a connection there.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 30000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done

# Syslog: where nothing listens on /dev/log, a listener here keeps what logger sends.
if [ ! -e /dev/log ] && command -v python3 >/dev/null; then
  python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
print("ready", flush=True)
with open(sys.argv[1], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536) + b"\n")
' "$W/syslog.txt" >"$W/syslog.ready" 2>&1 &
  syslog_pid=$!
  made_dev_log=1
  for _ in $(seq 50); do grep -q ready "$W/syslog.ready" 2>/dev/null && break; sleep 0.1; done
fi

# A munged of this test's own (key, socket, log, seed and pid in $W); AuthInfo points every
# Slurm command at its socket, so the machine's munged and key are not touched.
head -c 1024 /dev/urandom >"$W/munge/key"
chmod 400 "$W/munge/key"
/usr/sbin/munged --force --socket="$W/munge/sock" --key-file="$W/munge/key" \
  --log-file="$W/munge/log" --pid-file="$W/munged.pid" --seed-file="$W/munge/seed" ||
  { echo "FAIL: munged did not start: $(tail -3 "$W/munge/log" 2>/dev/null)"; exit 1; }
for _ in $(seq 50); do [ -S "$W/munge/sock" ] && break; sleep 0.1; done

set_config() {  # LINES...: README's settings (the log file moved here), then LINES, in
  # /etc/default/gpudoctor, root's, 0644
  { sed "s|^GPUDOCTOR_LOG_FILE=.*|GPUDOCTOR_LOG_FILE=$HCLOG|" <<<"$settings"; printf '%s\n' "$@"; } >/etc/default/gpudoctor
  chmod 644 /etc/default/gpudoctor
}

# What drains the node: this machine as it is (no GPU: CI's case), or, where gpudoctor finds no
# node problem here (a healthy GPU host), a captured host with one, through the test hook.
problem_args=
line=$(env -i "$GD" --scope node --format npd --cuda-timeout 20 2>/dev/null)
line_rc=$?
if [ "$line_rc" != 1 ]; then
  echo "NOTE: gpudoctor finds no node problem on this machine (exit $line_rc: '$line'): a captured broken host is replayed to drain the node"
  cp "$HOSTS/upgrade-without-reboot.capture.json" "$W/broken.json"
  problem_args="GPUDOCTOR_ARGS=\"replay $W/broken.json\""
  line=$("$GD" replay "$W/broken.json" --scope node --format npd 2>/dev/null)
  line_rc=$?
  set_config "$problem_args"
fi
checks=$((checks + 1))
[ "$line_rc" = 1 ] || fail "no npd problem line to drain with (exit $line_rc: '$line')"

cat >/etc/slurm/slurm.conf <<EOF
# Written by tests/e2e/test_slurm_healthcheck.sh; the original is restored when it ends.
ClusterName=gdtest
SlurmctldHost=$(uname -n | cut -d. -f1)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/sock
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=1
# CPUs=2 below lets srun run two tasks on this one node; config_overrides keeps a machine with
# fewer CPUs from draining it as "Low CPUs".
SlurmdParameters=config_overrides
# README's lines, with this test's copy of the script and a short interval:
$(sed -e "s|^HealthCheckProgram=.*|HealthCheckProgram=$HC|" -e "s|^HealthCheckInterval=.*|HealthCheckInterval=$INTERVAL|" <<<"$conf_lines")
# The NodeName is not the host name: the script must take slurmd's SLURMD_NODENAME.
NodeName=$NODE NodeHostname=$(uname -n | cut -d. -f1) NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=gdtest Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

/usr/sbin/slurmctld -i || { echo "FAIL: slurmctld did not start"; tail -5 "$W/slurmctld.log"; exit 1; }
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
/usr/sbin/slurmd -N "$NODE" || { echo "FAIL: slurmd did not start"; tail -5 "$W/slurmd.log"; exit 1; }

re_escape() { printf '%s' "$1" | sed 's/[][\.*^$(){}?+|/]/\\&/g'; }
# state: prints "STATE|REASON" (reason without Slurm's " [user@time]").
state() {
  scontrol show node "$NODE" 2>/dev/null | awk '
    { sub(/^ +/, "") }
    /^State=/ { split($1, a, "="); s = a[2] }
    /^Reason=/ { r = substr($0, 8); sub(/ \[[^]]*\]$/, "", r) }
    END { print s "|" r }'
}
# wait_state NAME SECONDS ERE: the node's "STATE|REASON" matches ERE within SECONDS.
wait_state() {
  checks=$((checks + 1))
  local deadline=$((SECONDS + $2)) now
  while :; do
    now=$(state)
    [[ "$now" =~ $3 ]] && return 0
    [ "$SECONDS" -ge "$deadline" ] && break
    sleep 0.5
  done
  fail "$1: the node is '$now' after $2 s, expected /$3/"
  sed 's/^/    /' "$HCLOG" 2>/dev/null | tail -5
  grep -h health_check "$W/slurmd.log" | tail -3 | sed 's/^/    slurmd: /'
}
# runs: how many times slurmd has run the script since the log file was named.
runs() { grep -c "node $NODE:" "$HCLOG" 2>/dev/null || echo 0; }
# wait_runs N: slurmd ran the script N more times (the first may have read the old configuration).
wait_runs() {
  local want=$(($(runs) + $1)) deadline=$((SECONDS + $1 * INTERVAL * 3 + 10))
  while [ "$(runs)" -lt "$want" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
  checks=$((checks + 1))
  [ "$(runs)" -ge "$want" ] || fail "slurmd ran the health check $(runs) times, expected $want"
}
expect_state() {  # NAME EXPECTED ("STATE|REASON", exact)
  checks=$((checks + 1))
  local now
  now=$(state)
  [ "$now" = "$2" ] || { fail "$1: the node is '$now', expected '$2'"; tail -5 "$HCLOG" 2>/dev/null | sed 's/^/    /'; }
}
expect_log() {  # NAME ERE: the script's log file has a line matching ERE
  checks=$((checks + 1))
  grep -qE -- "$2" "$HCLOG" || { fail "$1: the health check's log lacks /$2/"; tail -5 "$HCLOG" | sed 's/^/    /'; }
}

# 1. No GPU here, no configuration: slurmd's first runs drain the node with gpudoctor's reason,
#    the npd line this machine gives without any environment.
wait_state drain 20 "^[A-Z]+\+DRAIN\|gpudoctor: $(re_escape "$line")\$"
checks=$((checks + 1))
[ -z "$(sed -n '/health_check failed/p' "$W/slurmd.log")" ] || fail "slurmd logged a failed health check: $(grep -m1 'health_check failed' "$W/slurmd.log")"
if [ "$made_dev_log" = 1 ]; then
  checks=$((checks + 1))
  grep -qE "gpudoctor: node $NODE: drained .*gpudoctor: $(re_escape "$line")" "$W/syslog.txt" ||
    fail "syslog lacks the drain: $(tail -3 "$W/syslog.txt" 2>/dev/null)"
else
  # Not a skip: the same lines go to the log file, checked below; only logger's copy is unread.
  echo "NOTE: /dev/log is this machine's syslog (or no python3 to listen): the logger lines were not read"
fi

# 2. The test hook: replay a healthy H200. The drain was gpudoctor's, so the node is undrained.
set_config "GPUDOCTOR_ARGS=\"replay $W/healthy.json\""
wait_state undrain 20 '^IDLE\|$'
expect_log undrain "notice: node $NODE: undrained, no node problems found \(was 'gpudoctor: "

# 3. The one-off sweep, README's srun line as written there (on this one node; gpudoctor found on
#    the PATH srun passes on, as on a shared path), then with two tasks on the node at once, whose
#    lines the labels and the sort must keep apart.
sweep() {  # NAME LINE: run LINE in $TMP/NAME; srun's exit in $rc, the reports in $TMP/NAME/sweep.json
  mkdir -p "$TMP/$1"
  (cd "$TMP/$1" && PATH=$W/bin:$PATH timeout 90 bash -c "$2"'; echo "${PIPESTATUS[0]}" >rc') 2>"$TMP/$1.err"
  rc=$(cat "$TMP/$1/rc" 2>/dev/null)
  checks=$((checks + 1))
  [ "$rc" = 1 ] || { fail "$1: srun: exit '$rc', expected 1 (this node has a problem)"; sed 's/^/    /' "$TMP/$1.err" | head; }
}
reports() {  # NAME: "N HOST..." of the JSON documents one after another in $TMP/NAME/sweep.json
  python3 -c '
import json, sys
text, at, hosts = open(sys.argv[1]).read(), 0, []
dec = json.JSONDecoder()
while text[at:].strip():
    at += len(text[at:]) - len(text[at:].lstrip())
    r, at = dec.raw_decode(text, at)
    assert r["schema_version"] == 1 and r["run"]["mode"] == "live" and "capture" not in r, r["run"]
    hosts.append(r["run"]["host"])
print(len(hosts), *hosts)' "$TMP/$1/sweep.json" 2>&1 | tail -1
}
checks=$((checks + 1))
[[ "$srun_line" == "srun -N 16 --ntasks-per-node=1 "* ]] || fail "README's srun line changed shape: $srun_line"
sweep srun_one "${srun_line/-N 16/-N 1 -w $NODE}"
got=$(reports srun_one)
checks=$((checks + 1))
[ "$got" = "1 $(uname -n)" ] || fail "srun_one: the sweep holds '$got', expected '1 $(uname -n)'"
sweep srun_two "${srun_line/-N 16 --ntasks-per-node=1/-N 1 -n 2 -w $NODE}"
got=$(reports srun_two)
checks=$((checks + 1))
[ "$got" = "2 $(uname -n) $(uname -n)" ] || fail "srun_two: the sweep holds '$got', expected two reports of $(uname -n)"

# 3b. README's fleet recipe ("### One view of the fleet"): its block with the srun line runs
#    as written (on this one node), srun writing one report per node into sweep/, then
#    `gpudoctor fleet sweep` groups them. srun exits 0 when it could not write a task's output
#    file, so the report itself is what is checked.
fleet_block=$(awk '
  !fenced && /^#+ / { inside = ($0 ~ /^### One view of the fleet/) }
  inside && /^```/ { fenced = !fenced; if (!fenced) { if (block ~ /\nsrun /) { printf "%s", block; exit } block = "" } next }
  inside && fenced { block = block "\n" $0 }' "$README")
checks=$((checks + 1))
if ! grep -q '^srun .*--output=' <<<"$fleet_block"; then
  fail "README's \"### One view of the fleet\" has no block with its srun --output line"
else
  mkdir -p "$TMP/fleet_recipe"
  fleet_script=$(sed -E "s/^srun --nodes=[0-9]+ /srun --nodes=1 -w $NODE /" <<<"$fleet_block")
  (cd "$TMP/fleet_recipe" && PATH=$W/bin:$PATH timeout 90 bash -c "$fleet_script") >"$TMP/fleet_recipe.out" 2>"$TMP/fleet_recipe.err"
  rc=$?
  expect_rc fleet_recipe 0  # the last line, gpudoctor fleet: every report was read
  shopt -s nullglob
  swept=("$TMP"/fleet_recipe/sweep/*.json)
  shopt -u nullglob
  checks=$((checks + 1))
  if [ "${#swept[@]}" != 1 ]; then
    fail "fleet_recipe: sweep/ holds ${#swept[@]} reports, expected 1 (srun: $(grep -m1 'srun: error' "$TMP/fleet_recipe.err"))"
  else
    mkdir -p "$TMP/fleet_one" && cp "${swept[0]}" "$TMP/fleet_one/sweep.json"
    got=$(reports fleet_one)
    checks=$((checks + 1))
    [ "$got" = "1 $(uname -n)" ] || fail "fleet_recipe: ${swept[0]} holds '$got', expected '1 $(uname -n)'"
  fi
  expect_out fleet_recipe "$(re_escape "$(uname -n)")"
fi

# 4. An admin's drain stays: with nothing wrong, and with gpudoctor finding a problem.
scontrol update NodeName="$NODE" State=DRAIN Reason="admin: reseat GPU 3"
wait_runs 2
expect_state admin_healthy "IDLE+DRAIN|admin: reseat GPU 3"
set_config "$problem_args"
wait_runs 2
expect_state admin_problem "IDLE+DRAIN|admin: reseat GPU 3"
expect_log admin_problem "notice: node $NODE: gpudoctor found '.*'; the node is IDLE\+DRAIN with reason 'admin: reseat GPU 3', not gpudoctor's: left as it is"

# 4b. A node gpudoctor drained for an earlier problem gets the problem it has now as its reason.
scontrol update NodeName="$NODE" State=UNDRAIN
scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: test.earlier: an earlier problem"
wait_state redrain 20 "^[A-Z]+\+DRAIN\|gpudoctor: $(re_escape "$line")\$"
expect_log redrain "warning: node $NODE: drained \(was IDLE\+DRAIN, reason 'gpudoctor: test.earlier: an earlier problem'\)"

# 5. gpudoctor fails (corrupt capture, exit 2): an undrained node stays undrained, and a node
#    gpudoctor drained stays drained.
set_config "GPUDOCTOR_ARGS=\"replay $W/corrupt.json\""
scontrol update NodeName="$NODE" State=UNDRAIN
wait_runs 2
wait_state failure_idle 5 '^IDLE\|$'
expect_log failure_idle "err: node $NODE: gpudoctor failed \(exit 2\): gpudoctor: error: $W/corrupt.json: .*: node left as it is"
scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: test.drain: set by the test"
wait_runs 2
expect_state failure_drained "IDLE+DRAIN|gpudoctor: test.drain: set by the test"
checks=$((checks + 1))
grep -q 'health_check failed' "$W/slurmd.log" && fail "the script exited non-zero: $(grep -m1 'health_check failed' "$W/slurmd.log")"
scontrol update NodeName="$NODE" State=UNDRAIN
wait_state failure_reset 10 '^IDLE\|$'

# 6. By hand, as slurmd runs it (env -i, SLURMD_NODENAME only), against other binaries beside it.
#    slurmd's own runs meanwhile fail on the corrupt capture and change nothing.
by_hand() {  # NAME DIR [ARGS...]: run DIR's copy of the script (within HAND_TIMEOUT s if set); stderr in $TMP/NAME.err
  local name=$1 dir=$2
  shift 2
  ${HAND_TIMEOUT:+timeout -k 2 "$HAND_TIMEOUT"} env -i SLURMD_NODENAME="$NODE" GPUDOCTOR_CONFIG="${HAND_CONFIG:-$W/hand.conf}" \
    "$dir/gpudoctor-healthcheck" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
  rc=$?
  expect_rc "$name" 0  # always 0: slurmd would otherwise keep the node from registering
}
fake_dir() {  # NAME BODY: a folder with the script and a fake gpudoctor running BODY
  mkdir -p "$W/$1"
  cp "$SCRIPT" "$W/$1/"
  printf '#!/bin/bash\n%s\n' "$2" >"$W/$1/gpudoctor"
  chmod 755 "$W/$1/gpudoctor"
}
printf 'GPUDOCTOR_CUDA_TIMEOUT=1\n' >"$W/hand.conf"

fake_dir hang 'sleep 60'
start=$SECONDS
by_hand hang "$W/hang"
expect_err hang "err: node $NODE: gpudoctor failed \(no answer within 11 s, killed\): node left as it is"
checks=$((checks + 1))
[ $((SECONDS - start)) -le 20 ] || fail "hang: the script took $((SECONDS - start)) s"
fake_dir signal 'echo "x.y: half a line"; kill -TERM $$'
by_hand signal "$W/signal"
expect_err signal "gpudoctor failed \(killed by signal 15\): node left as it is"
fake_dir garbage 'echo "Segmentation fault somewhere"; exit 1'
by_hand garbage "$W/garbage"
expect_err garbage "gpudoctor failed \(exit 1 without a '<rule id>: <title>' line, output 'Segmentation fault somewhere'\)"
fake_dir ok_garbage 'echo "all good I think"; exit 0'
by_hand ok_garbage "$W/ok_garbage"
expect_err ok_garbage "gpudoctor failed \(exit 0 without 'no node problems found'"
expect_state fakes_untouched "IDLE|"

# Where the binary is looked for: beside the script, then /usr/local/bin, then PATH. Each case
# runs in a mount namespace of its own with a folder of the test's bound on /usr/local/bin, so
# the machine's /usr/local/bin is neither read nor changed; each fake names where it was found.
fake_dir beside 'echo "test.beside: found beside the script"; exit 1'
fake_dir onpath 'echo "test.on-path: found on PATH"; exit 1'
fake_dir ulb 'echo "test.usr-local-bin: found in /usr/local/bin"; exit 1'
rm "$W/onpath/gpudoctor-healthcheck" "$W/ulb/gpudoctor-healthcheck"
mkdir -p "$W/alone" "$W/empty" && cp "$SCRIPT" "$W/alone/"
lookup() {  # NAME SCRIPT-DIR ON-USR-LOCAL-BIN [PATH]: a dry run of SCRIPT-DIR's copy
  unshare -m bash -c 'mount --bind "$1" /usr/local/bin && exec env -i SLURMD_NODENAME="$2" GPUDOCTOR_CONFIG="$3" ${4:+"PATH=$4"} "$5/gpudoctor-healthcheck" --dry-run' \
    _ "$3" "$NODE" "$W/hand.conf" "${4-}" "$2" >"$TMP/$1.out" 2>"$TMP/$1.err"
  rc=$?
  expect_rc "$1" 0
}
would_drain() { expect_err "$1" "would drain: scontrol update NodeName=$NODE State=DRAIN Reason=gpudoctor: $2"; }
installed=
for d in /usr/local/sbin /usr/sbin /usr/bin /sbin /bin; do [ -e "$d/gpudoctor" ] && installed="$installed $d/gpudoctor"; done
if ! unshare -m true 2>/dev/null; then
  # Not a skip: every other case ran; this machine only lacks mount namespaces.
  echo "NOTE: unshare -m fails here: where the binary is looked for was not checked"
else
  lookup beside "$W/beside" "$W/ulb" "$W/onpath"
  would_drain beside "test.beside: found beside the script"
  lookup usr_local_bin "$W/alone" "$W/ulb" "$W/onpath"
  would_drain usr_local_bin "test.usr-local-bin: found in /usr/local/bin"
  lookup on_path "$W/alone" "$W/empty" "$W/onpath"
  would_drain on_path "test.on-path: found on PATH"
  if [ -n "$installed" ]; then
    echo "NOTE: gpudoctor is installed here ($installed): the 'not found' case was not run"
  else
    lookup alone "$W/alone" "$W/empty"
    expect_err alone "err: \(dry run\) node $NODE: gpudoctor not found beside $W/alone/gpudoctor-healthcheck, in /usr/local/bin or on PATH: node left as it is"
  fi
fi

# The configuration decides what root runs: refused unless only root may write it.
printf 'GPUDOCTOR_ARGS="replay %s"\n' "$W/healthy.json" >"$W/unsafe.conf"
chmod 666 "$W/unsafe.conf"
HAND_CONFIG=$W/unsafe.conf by_hand unsafe "$W/bin"
expect_err unsafe "err: node $NODE: $W/unsafe.conf is not a regular file of root's writable by root only"
printf 'GPUDOCTOR_ARGS="--format json"\nGPUDOCTOR_CUDA_TIMEOUT=99\nFOO=1\n' >"$W/refused.conf"
HAND_CONFIG=$W/refused.conf by_hand refused "$W/bin"
expect_err refused "ignoring unknown key FOO"
expect_err refused "GPUDOCTOR_CUDA_TIMEOUT=99 is not 1 to 25 seconds: using 20"
expect_err refused "GPUDOCTOR_ARGS may not hold --format \(this program sets it\)"

# --dry-run on a real problem: says it would drain, drains nothing.
printf '%s\n' "$problem_args" >"$W/live.conf"
HAND_CONFIG=$W/live.conf by_hand dry_run "$W/bin" --dry-run
expect_err dry_run "\(dry run\) node $NODE: would drain: scontrol update NodeName=$NODE State=DRAIN Reason=gpudoctor: $(re_escape "$line")"
checks=$((checks + 1))
grep -q 'drained' "$TMP/dry_run.err" && fail "dry_run: says it drained: $(cat "$TMP/dry_run.err")"
expect_state dry_run "IDLE|"

# Without SLURMD_NODENAME the node is the short host name, which is no node of this cluster.
env -i GPUDOCTOR_CONFIG="$W/live.conf" "$HC" >"$TMP/no_name.out" 2>"$TMP/no_name.err"
rc=$?
expect_rc no_name 0
expect_err no_name "err: node $(uname -n | cut -d. -f1): scontrol show node $(uname -n | cut -d. -f1) failed: .*node left as it is"

# A GPU that another job keeps busy is no node problem (issue 23): gpudoctor's all-clear says what
# it could not prove after "; ", and a drain of gpudoctor's is lifted all the same.
fake_dir busy 'echo "no node problems found; 1 GPU(s) busy, not proven"; exit 0'
scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: test.busy: drained before"
wait_state busy_drained 5 'DRAIN'
by_hand busy "$W/busy"
expect_err busy "undrained, no node problems found \(was 'gpudoctor: test.busy: drained before'\)"
wait_state busy_undrained 5 '^IDLE\|$'
# Anything else after the all-clear is not the npd form: gpudoctor failed, the node is left alone.
fake_dir busy_garbage 'echo "no node problems found, probably"; exit 0'
by_hand busy_garbage "$W/busy_garbage"
expect_err busy_garbage "gpudoctor failed \(exit 0 without 'no node problems found'"

# Output gpudoctor cannot have meant (issue 24 item 12) is gpudoctor failing, never the all-clear
# and never a drain: a NUL in stderr (which once moved "no node problems found" into the stdout
# slot and undrained the node) or in stdout, several lines where one is expected, megabytes of
# output (5 MB once took 218 s to parse, past slurmd's 60 s), an output a child of gpudoctor's
# keeps open after it exited. Each is judged within 30 s and a drain of gpudoctor's stays.
scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: test.hostile: drained before"
wait_state hostile_drained 5 'DRAIN'
fake_dir nul_err 'printf "e\0no node problems found\n\0%s\n" 0 >&2; echo "test.nul: a finding"; exit 1'
fake_dir nul_out 'printf "no node problems found\n\0more\n"; exit 0'
fake_dir two_lines 'printf "no node problems found\ntest.x: another line\n"; exit 0'
fake_dir big_out 'echo "no node problems found"; head -c 5000000 /dev/zero | tr "\0" x; echo; exit 0'
fake_dir big_err 'head -c 5000000 /dev/zero | tr "\0" x >&2; echo "no node problems found"; exit 0'
fake_dir big_line 'head -c 5000000 /dev/zero | tr "\0" x; echo; exit 1'
fake_dir held_open '(setsid sleep 20 &); echo "no node problems found"; exit 0'  # a child keeps stdout open
declare -A hostile_reason=(
  [nul_err]="a NUL byte in its output" [nul_out]="a NUL byte in its output"
  [two_lines]="2 lines of output where one is expected" [big_out]="more than 65536 bytes of output"
  [big_err]="more than 65536 bytes of output" [big_line]="more than 65536 bytes of output"
  [held_open]="its output still open after 13 s: a process it started keeps it")
for case in nul_err nul_out two_lines big_out big_err big_line held_open; do
  start=$SECONDS
  HAND_TIMEOUT=60 by_hand "$case" "$W/$case"
  checks=$((checks + 1))
  [ $((SECONDS - start)) -le 30 ] || fail "$case: the script took $((SECONDS - start)) s"
  expect_err "$case" "err: node $NODE: gpudoctor failed \(${hostile_reason[$case]}\).*: node left as it is\$"
  checks=$((checks + 1))
  ! grep -qE 'undrain|drained' "$TMP/$case.err" || fail "$case: $(grep -E 'undrain|drained' "$TMP/$case.err" | head -c 300)"
  checks=$((checks + 1))
  [ "$(wc -c <"$TMP/$case.err")" -lt 2000 ] || fail "$case: the script's own log is $(wc -c <"$TMP/$case.err") bytes"
  expect_state "$case" "IDLE+DRAIN|gpudoctor: test.hostile: drained before"
done
scontrol update NodeName="$NODE" State=UNDRAIN
wait_state hostile_reset 10 '^IDLE\|$'

# Drained by gpudoctor and DOWN: the problem is gone, so the drain is cleared (UNDRAIN), but
# the node stays DOWN (RESUME would have put it back in service).
printf 'GPUDOCTOR_ARGS="replay %s"\n' "$W/healthy.json" >"$W/healthy.conf"
scontrol update NodeName="$NODE" State=DRAIN Reason="gpudoctor: test.down: drained then down"
scontrol update NodeName="$NODE" State=DOWN Reason="gpudoctor: test.down: drained then down"
wait_state down_drain 5 '^DOWN\+DRAIN'
HAND_CONFIG=$W/healthy.conf by_hand down "$W/bin"
expect_err down "undrained, no node problems found \(was 'gpudoctor: test.down: drained then down'\); the node stays DOWN"
wait_state down_stays 5 '^DOWN[+|]'
checks=$((checks + 1))
[[ "$(state)" != *DRAIN* ]] || fail "down: still drained: $(state)"

finish
