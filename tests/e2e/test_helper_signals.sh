# Issue 24 item 9: what libcuda forks dies with gpudoctor. A fake libcuda forks a child that
# stays in the helper's process group and then hangs in cuInit; gpudoctor is stopped with
# SIGTERM, SIGINT, SIGHUP and SIGQUIT while it waits for the helper. The child must be gone
# when gpudoctor has exited (before: the helper died by its parent-death signal, the child
# lived on), and gpudoctor must still die by the signal it was sent.
source "$(dirname "$0")/lib.sh"

[ -f "$FAKES/libcuda.so.1" ] || { echo "SKIP: fakes not built in $FAKES"; exit 125; }
[ -e /lib64/ld-linux-x86-64.so.2 ] || [ -e /lib/ld-linux-aarch64.so.1 ] || { echo "SKIP: no glibc loader on this machine"; exit 125; }
unset CUDA_VISIBLE_DEVICES LD_PRELOAD

# stop_case SIGNAL: prints "<gpudoctor's wait status> <child alive 0|1> <ms from signal to exit>".
# Python starts gpudoctor with every stop signal at its default (a background job of a
# non-interactive shell has SIGINT and SIGQUIT ignored, which gpudoctor rightly keeps).
stop_case() {
  python3 - "$GD" "$FAKES" "$TMP/child-$1.pid" "$1" <<'PY'
import os, resource, signal, subprocess, sys, time
gd, fakes, pidfile, name = sys.argv[1:5]
env = dict(os.environ, FAKE_CUDA_SPAWN_PIDFILE=pidfile, FAKE_CUDA_HANG_IN="cuInit")
def defaults():
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(s, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGQUIT's default dumps core: not here
proc = subprocess.Popen([gd, "--libcuda", fakes + "/libcuda.so.1", "--libnvml", fakes + "/libnvidia-ml.so.1",
                         "--cuda-timeout", "60"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        preexec_fn=defaults)
deadline = time.time() + 30
while not os.path.exists(pidfile) and time.time() < deadline and proc.poll() is None:
    time.sleep(0.02)
if not os.path.exists(pidfile):
    proc.kill()
    print("no-child", 0, 0)
    sys.exit(0)
child = int(open(pidfile).read())
time.sleep(0.2)  # gpudoctor is now waiting for the hung helper
sent = time.time()
proc.send_signal(getattr(signal, name))
try:
    status = proc.wait(timeout=10)
except subprocess.TimeoutExpired:
    proc.kill()
    status = "hung"
took = int((time.time() - sent) * 1000)
alive = 1
for _ in range(50):  # a killed child may need a moment to be reaped by init
    try:
        os.kill(child, 0)
        with open("/proc/%d/stat" % child) as f:
            if f.read().split(") ")[1].startswith("Z"):
                alive = 0
                break
    except (ProcessLookupError, FileNotFoundError):
        alive = 0
        break
    time.sleep(0.02)
if alive:
    os.kill(child, signal.SIGKILL)  # leave nothing behind, whatever the verdict
print(status, alive, took)
PY
}

for sig in SIGTERM SIGINT SIGHUP SIGQUIT; do
  read -r status alive took < <(stop_case "$sig")
  number=$(python3 -c "import signal; print(int(signal.$sig))")
  checks=$((checks + 1))
  [ "$status" != no-child ] || { fail "$sig: the fake libcuda's child never started"; continue; }
  checks=$((checks + 1))
  [ "$alive" = 0 ] || fail "$sig: libcuda's child outlived gpudoctor"
  checks=$((checks + 1))
  [ "$status" = "-$number" ] || fail "$sig: gpudoctor ended with $status, expected death by signal $number"
  checks=$((checks + 1))
  [ "$took" -le 3000 ] || fail "$sig: gpudoctor took ${took} ms to exit after the signal"
done

finish
