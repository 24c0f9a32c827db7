#include "probes/container/containers.hpp"

#include <catch2/catch.hpp>

#include "fact_access.hpp"

#include <cerrno>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "container_probe_run.hpp"
#include "core/fact_key.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;

using gd::test::state_of;
using gd::test::reason_of;
using gd::test::list_of;
using gd::test::set_file;

namespace {

using Strings = std::vector<std::string>;

/// Replays the capture through the probes this one builds on (container_probe_run.hpp), then it.
FactSet run(Capture capture) {
  return gd::test::facts_after_module_and_nodes(std::move(capture), [](gd::ReplayHost& host, FactSet& facts) {
    gd::probe_containers(host, gd::ProbeOptions{}, facts);
  });
}

Capture h200() { return gd::test::h200_container_capture(); }

}  // namespace

TEST_CASE("containers: the healthy H200 container", "[probes][containers]") {
  FactSet facts = run(h200());
  CHECK(facts.get_string("cgroup.version"_fact) == "v2");
  CHECK(facts.get_string("cgroup.path"_fact) == "/process_api/636c326387033a79cabd8cf06325d8d6");
  CHECK(state_of(facts, "cgroup.devices_list"_fact) == FactState::absent);
  CHECK(facts.get_string("container.runtime"_fact) == "docker");
  CHECK(facts.get_string("container.runtime_evidence"_fact) == "/.dockerenv exists");
  CHECK(facts.get_bool("container.in_container"_fact) == true);
  CHECK(facts.get_bool("virt.is_vm"_fact) == true);
  CHECK(facts.get_string("virt.hypervisor"_fact) == "unknown");  // Firecracker: no DMI table
  CHECK(state_of(facts, "virt.dmi_vendor"_fact) == FactState::absent);
  CHECK(facts.get_bool("virt.wsl2"_fact) == false);
  CHECK(facts.get_string("env.nvidia_visible_devices"_fact) == "0");
  CHECK(facts.get_string("env.nvidia_driver_capabilities"_fact) == "compute,graphics,utility");
  CHECK(facts.get_string("env.nvidia_require_cuda"_fact)->starts_with("cuda>=13.0 brand=unknown,driver>=535,driver<536 "));
  CHECK(state_of(facts, "env.nvidia_disable_require"_fact) == FactState::absent);
  CHECK(list_of(facts, "container.missing_driver_capabilities"_fact).empty());
  CHECK(facts.get_string("container.driver_cuda_version"_fact) == "13.0");
  // The real requirement is met by 580.159.04.
  CHECK(state_of(facts, "container.require_cuda_unmet"_fact) == FactState::absent);
  CHECK(reason_of(facts, "container.require_cuda_unmet"_fact) == "met by driver 580.159.04 (CUDA 13.0)");
  CHECK(state_of(facts, "container.cuda_visible_devices_malformed"_fact) == FactState::absent);
  CHECK(state_of(facts, "container.cuda_visible_devices_absent"_fact) == FactState::absent);
}

TEST_CASE("containers: cgroup v1 devices.list after systemctl daemon-reload", "[probes][containers]") {
  // A Docker container on a v1 host; the systemd driver rewrote the device rules to "m" only
  // (nvidia-container-toolkit#251).
  Capture c = h200();
  set_file(c, "/proc/self/cgroup", "12:devices:/docker/4b6f2c1e9d0a\n1:name=systemd:/docker/4b6f2c1e9d0a\n");
  set_file(c, "/proc/self/mountinfo",
           "1200 1190 0:29 /docker/4b6f2c1e9d0a /sys/fs/cgroup/devices ro,nosuid,nodev,noexec,relatime master:16 - "
           "cgroup cgroup rw,devices\n");
  set_file(c, "/sys/fs/cgroup/devices/devices.list", "c 1:3 rwm\nc 136:* rwm\nc 195:* m\n");
  FactSet facts = run(c);
  CHECK(facts.get_string("cgroup.version"_fact) == "v1");
  CHECK(facts.get_string("cgroup.path"_fact) == "/docker/4b6f2c1e9d0a");
  CHECK(list_of(facts, "cgroup.devices_list"_fact) == Strings{"c 1:3 rwm", "c 136:* rwm", "c 195:* m"});
  CHECK(list_of(facts, "cgroup.devices_list_denies"_fact) ==
        Strings{"/dev/nvidiactl 195:255", "/dev/nvidia-uvm 238:0", "/dev/nvidia-uvm-tools 238:1", "/dev/nvidia0 195:0"});

  // On a v1 host outside a container the process's own cgroup folder holds the list.
  Capture host = h200();
  set_file(host, "/proc/self/cgroup", "11:devices:/user.slice\n0::/user.slice/user-1000.slice/session-2.scope\n");
  set_file(host, "/proc/self/mountinfo",
           "26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw\n"
           "32 25 0:29 / /sys/fs/cgroup/devices rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,devices\n");
  set_file(host, "/sys/fs/cgroup/devices/user.slice/devices.list", "a *:* rwm\n");
  FactSet host_facts = run(host);
  CHECK(host_facts.get_string("cgroup.version"_fact) == "hybrid");
  CHECK(list_of(host_facts, "cgroup.devices_list_denies"_fact).empty());
}

TEST_CASE("containers: runtimes, VMs and WSL2", "[probes][containers]") {
  Capture podman = h200();
  podman.paths.erase("/.dockerenv");
  set_file(podman, "/run/.containerenv", "engine=\"podman-4.9.3\"\n");
  CHECK(run(podman).get_string("container.runtime"_fact) == "podman");

  Capture lxc = h200();
  lxc.paths.erase("/.dockerenv");
  set_file(lxc, "/run/systemd/container", "lxc\n");
  FactSet lxc_facts = run(lxc);
  CHECK(lxc_facts.get_string("container.runtime"_fact) == "lxc");
  CHECK(lxc_facts.get_string("container.runtime_evidence"_fact) == "/run/systemd/container says lxc");

  Capture bare = h200();
  bare.paths.erase("/.dockerenv");
  set_file(bare, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae\n");
  set_file(bare, "/sys/class/dmi/id/sys_vendor", "Supermicro\n");
  set_file(bare, "/sys/class/dmi/id/product_name", "SYS-821GE-TNHR\n");
  FactSet bare_facts = run(bare);
  CHECK(bare_facts.get_string("container.runtime"_fact) == "none");
  CHECK(bare_facts.get_bool("container.in_container"_fact) == false);
  CHECK(bare_facts.get_bool("virt.is_vm"_fact) == false);
  CHECK(bare_facts.get_string("virt.hypervisor"_fact) == "none");
  CHECK(bare_facts.get_string("virt.dmi_vendor"_fact) == "Supermicro");

  Capture wsl = bare;
  wsl.uname->release = "5.15.153.1-microsoft-standard-WSL2";
  set_file(wsl, "/proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n");
  wsl.paths.erase("/sys/class/dmi/id/sys_vendor");
  wsl.paths.erase("/sys/class/dmi/id/product_name");
  FactSet wsl_facts = run(wsl);
  CHECK(wsl_facts.get_bool("virt.wsl2"_fact) == true);
  CHECK(wsl_facts.get_string("container.runtime"_fact) == "wsl2");
  CHECK(wsl_facts.get_bool("container.in_container"_fact) == false);
  CHECK(wsl_facts.get_bool("virt.is_vm"_fact) == true);
}

TEST_CASE("containers: unreadable files", "[probes][containers]") {
  Capture c = h200();
  c.identity = gd::Identity{1000, 1000, {}};
  c.paths["/proc/self/mountinfo"].read = std::unexpected(gd::IoError{EACCES});
  c.paths["/proc/self/cgroup"].read = std::unexpected(gd::IoError{EACCES});
  c.paths["/proc/cpuinfo"].read = std::unexpected(gd::IoError{EACCES});
  FactSet facts = run(c);
  CHECK(state_of(facts, "cgroup.version"_fact) == FactState::unknown);
  CHECK(reason_of(facts, "cgroup.version"_fact).starts_with("needs root"));
  CHECK(state_of(facts, "cgroup.path"_fact) == FactState::unknown);
  CHECK(state_of(facts, "virt.is_vm"_fact) == FactState::unknown);
  // The runtime still comes from /.dockerenv.
  CHECK(facts.get_string("container.runtime"_fact) == "docker");
}

}  // namespace GD_UNITY_ID
