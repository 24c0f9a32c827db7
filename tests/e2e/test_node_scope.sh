# --scope node (issue 15): a health check sees only the node's problems. The captured hosts are
# replayed: a user's CUDA_VISIBLE_DEVICES or LD_LIBRARY_PATH is never the node's problem, a
# node's own fault still is, and every finding carries its scope and action.
source "$(dirname "$0")/lib.sh"


# CUDA_VISIBLE_DEVICES=99 on the real H200: the user's problem. All scopes report it, as the
# environment's; --scope node leaves it out and says so.
run_gd cvd_all replay "$HOSTS/h200-live-cvd99.capture.json" --json --no-capture
expect_rc cvd_all 1
expect_json cvd_all '[(f["id"], f["scope"], f["action"]) for f in r["findings"]]' \
  "[('cuda.visible-devices-hides-gpus', 'environment', 'fix-environment')]"
expect_json cvd_all 'r["run"]["scope"]' all
run_gd cvd_node replay "$HOSTS/h200-live-cvd99.capture.json" --json --no-capture --scope node
expect_rc cvd_node 0
expect_json cvd_node 'r["findings"]' '[]'
expect_json cvd_node 'r["summary"]["left_out"]' "['cuda.visible-devices-hides-gpus']"
expect_json cvd_node 'r["run"]["scope"]' node
run_gd cvd_node_text replay "$HOSTS/h200-live-cvd99.capture.json" --scope node
expect_rc cvd_node_text 0
expect_out cvd_node_text '^Left out by --scope node \(this environment.s, not the node.s\): cuda\.visible-devices-hides-gpus$'
# The CUDA line stays [X] (the caller's CUDA_VISIBLE_DEVICES hid the GPU): never "No ... problems
# found" under it.
expect_out cvd_node_text '^No problem confirmed; .*, [0-9]+ layers? (is|are) flagged above'

# A stub libcuda that LD_LIBRARY_PATH put first: cuda.stub-libcuda is a node rule (a stubs folder
# in /etc/ld.so.conf.d is the node's), but here the helper's run without the variable worked.
run_gd stub_all replay "$HOSTS/h200-live-stub-ldpath.capture.json" --json --no-capture
expect_json stub_all '[(f["id"], f["scope"]) for f in r["findings"]]' "[('cuda.stub-libcuda', 'node')]"
run_gd stub_node replay "$HOSTS/h200-live-stub-ldpath.capture.json" --json --no-capture --scope node
expect_rc stub_node 0
expect_json stub_node 'r["summary"]["left_out"]' "['cuda.stub-libcuda']"

# The node's own faults stay, with their actions: a driver upgraded without a reboot, a stale
# uvm major, a GPU that hangs.
for case in lxc-stale-uvm-major:devices.uvm-wrong-major:fix-config \
            fake-eight-one-stuck:cuda.gpu-stuck:reset-gpu; do
  IFS=: read -r capture id action <<<"$case"
  run_gd "node_$capture" replay "$HOSTS/$capture.capture.json" --json --no-capture --scope node
  expect_rc "node_$capture" 1
  expect_json "node_$capture" '[(f["id"], f["scope"], f["action"]) for f in r["findings"]][0]' \
    "('$id', 'node', '$action')"
done

# A driver upgraded without a reboot, seen in a mounted tree (--root: CUDA not run): the node's
# finding is reported, not confirmed, and an unconfirmed finding never fails the health check
# (issue 23): exit 0, and the npd all-clear says what it did not confirm.
run_gd node_upgrade replay "$HOSTS/upgrade-without-reboot.capture.json" --json --no-capture --scope node
expect_rc node_upgrade 0
expect_json node_upgrade '[(f["id"], f["scope"], f["action"], f["confirmed"]) for f in r["findings"]]' \
  "[('driver.userspace-version-mismatch', 'node', 'reboot', False)]"
run_gd node_upgrade_npd replay "$HOSTS/upgrade-without-reboot.capture.json" --scope node --format npd
expect_rc node_upgrade_npd 0
expect_out node_upgrade_npd '^no node problems found; 1 unconfirmed$'
run_gd all_upgrade_npd replay "$HOSTS/upgrade-without-reboot.capture.json" --format npd
expect_rc all_upgrade_npd 1
expect_out all_upgrade_npd '^driver\.userspace-version-mismatch: '

# The real H200 while a torch job holds all but 4 MiB of its memory (bench/results/shared-node):
# gpudoctor's context gets out of memory (2), NVML lists the job. The user is told (a warning,
# the environment's), the health check never fails the node, and says the GPU was not proven.
run_gd busy_all replay "$HOSTS/h200-live-busy-oom.capture.json" --json --no-capture
expect_rc busy_all 0
expect_json busy_all '[(f["id"], f["severity"], f["scope"], f["action"]) for f in r["findings"]]' \
  "[('cuda.gpu-busy', 'warning', 'environment', 'none')]"
expect_json busy_all '"held by pid 1242 (python3): 143144 MiB" in r["findings"][0]["message"]' True
run_gd busy_node replay "$HOSTS/h200-live-busy-oom.capture.json" --json --no-capture --scope node
expect_rc busy_node 0
expect_json busy_node 'r["findings"]' '[]'
expect_json busy_node 'r["summary"]["left_out"]' "['cuda.gpu-busy']"
expect_json busy_node 'r["summary"]["verdict"]' incomplete
run_gd busy_npd replay "$HOSTS/h200-live-busy-oom.capture.json" --scope node --format npd
expect_rc busy_npd 0
expect_out busy_npd '^no node problems found; 1 GPU\(s\) busy, not proven$'
run_gd busy_text replay "$HOSTS/h200-live-busy-oom.capture.json" --scope node
expect_out busy_text '^No problem confirmed; 1 GPU is busy with other processes. work and not proven\.$'
run_gd busy_prom replay "$HOSTS/h200-live-busy-oom.capture.json" --scope node --format prometheus
expect_out busy_prom '^gpudoctor_gpu_busy\{index="0",bus_id="0000:00:06.0",.*\} 1$'
expect_out busy_prom '^gpudoctor_gpu_proven\{index="0",bus_id="0000:00:06.0",.*\} NaN$'

# The Python environment and the toolkit are not read: their facts say why, the overview says
# skipped, and no rule about them decides or stays undecided.
run_gd ml_node replay "$HOSTS/h200-live-ml.capture.json" --json --no-capture --scope node
expect_json ml_node 'r["facts"]["torch.version"]["reason"]' 'not checked (--scope node)'
expect_json ml_node '[a["status"] for a in r["areas"] if a["id"] in ("python", "toolkit")]' "['skipped', 'skipped']"
expect_json ml_node '[i["id"] for i in r["inconclusive"] if i["id"].split(".")[0] in ("ml", "toolkit")]' '[]'
run_gd ml_all replay "$HOSTS/h200-live-ml.capture.json" --json --no-capture
expect_json ml_all '"torch.version" in r["facts"] and r["facts"]["torch.version"]["state"]' present

# Every finding of every captured host has a scope and an action from the documented sets, and
# every report names its node (the capture's uname nodename).
for capture in "$HOSTS"/*.capture.json; do
  name=$(basename "$capture" .capture.json)
  run_gd "all_$name" replay "$capture" --json --no-capture
  expect_json "all_$name" 'all(f["scope"] in ("node", "environment") and f["action"] in ("none", "fix-environment", "fix-config", "update-software", "restart-service", "reset-gpu", "reboot", "replace-hardware") for f in r["findings"])' True
  expect_json "all_$name" 'r["run"]["host"] == r["facts"].get("host.name", {}).get("value", "")' True
done
expect_json all_h200-live-kernel 'r["run"]["host"] != ""' True

# --redact hides the node's name in run.host too.
run_gd redacted replay "$HOSTS/h200-live-kernel.capture.json" --json --no-capture --redact
expect_json redacted 'r["run"]["host"]' '<host>'

# A bad scope is a usage error; --json and --format text ask for two formats.
run_gd badscope --scope nodes
expect_rc badscope 2
expect_err_lines badscope 1
run_gd twoformats --json --format text --no-cuda
expect_rc twoformats 2
expect_err twoformats 'two formats'
finish
