#include "probes/container/cgroups.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::cgroup_version;
using gd::devices_list_allows;
using gd::parse_devices_list;
using gd::parse_mountinfo;
using gd::parse_proc_cgroup;

namespace {

// The real H200 container (observations.md "cgroup"): /proc/self/cgroup and the cgroup line of
// /proc/self/mountinfo.
constexpr std::string_view k_h200_cgroup = "0::/process_api/636c326387033a79cabd8cf06325d8d6\n";
constexpr std::string_view k_h200_mount =
    "32 23 0:28 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";

// systemd's hybrid layout (Ubuntu 20.04 host): v1 controllers plus cgroup2 on .../unified.
constexpr std::string_view k_hybrid_mounts =
    "25 24 0:22 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
    "26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
    "27 25 0:24 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd\n"
    "32 25 0:29 / /sys/fs/cgroup/devices rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,devices\n";
constexpr std::string_view k_hybrid_cgroup =
    "12:cpuset:/\n11:devices:/user.slice\n10:memory:/user.slice/user-1000.slice/session-2.scope\n"
    "1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n0::/user.slice/user-1000.slice/session-2.scope\n";

// A Docker container on a cgroup v1 host.
constexpr std::string_view k_docker_v1_cgroup =
    "12:devices:/docker/4b6f2c1e9d0a\n11:memory:/docker/4b6f2c1e9d0a\n1:name=systemd:/docker/4b6f2c1e9d0a\n";

}  // namespace

TEST_CASE("cgroups: /proc/self/cgroup lines", "[probes][cgroups]") {
  auto v2 = parse_proc_cgroup(k_h200_cgroup);
  REQUIRE(v2.size() == 1);
  CHECK(v2[0].hierarchy == "0");
  CHECK(v2[0].controllers.empty());
  CHECK(v2[0].path == "/process_api/636c326387033a79cabd8cf06325d8d6");
  auto hybrid = parse_proc_cgroup(k_hybrid_cgroup);
  REQUIRE(hybrid.size() == 5);
  CHECK(hybrid[1].controllers == "devices");
  CHECK(hybrid[3].controllers == "name=systemd");
  // A path may itself contain colons.
  CHECK(parse_proc_cgroup("0::/a:b\n")[0].path == "/a:b");
  CHECK(parse_proc_cgroup("garbage\n").empty());
}

TEST_CASE("cgroups: mountinfo lines", "[probes][cgroups]") {
  auto mounts = parse_mountinfo(k_h200_mount);
  REQUIRE(mounts.size() == 1);
  CHECK(mounts[0].root == "/");
  CHECK(mounts[0].mount_point == "/sys/fs/cgroup");
  CHECK(mounts[0].fstype == "cgroup2");
  CHECK(mounts[0].source == "cgroup2");
  CHECK(mounts[0].super_options == "rw,nsdelegate,memory_recursiveprot");
  // Optional fields before "-", octal escapes in paths (proc(5)).
  auto escaped = parse_mountinfo("36 35 98:0 /mnt1 /mnt\\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue\n");
  REQUIRE(escaped.size() == 1);
  CHECK(escaped[0].mount_point == "/mnt 2");
  CHECK(escaped[0].fstype == "ext3");
  CHECK(parse_mountinfo("1 2 3 4\n").empty());
}

TEST_CASE("cgroups: version", "[probes][cgroups]") {
  CHECK(cgroup_version(parse_mountinfo(k_h200_mount), parse_proc_cgroup(k_h200_cgroup)) == "v2");
  CHECK(cgroup_version(parse_mountinfo(k_hybrid_mounts), parse_proc_cgroup(k_hybrid_cgroup)) == "hybrid");
  // Without mounts (no /sys/fs/cgroup in the container) the cgroup file decides.
  CHECK(cgroup_version({}, parse_proc_cgroup(k_h200_cgroup)) == "v2");
  CHECK(cgroup_version({}, parse_proc_cgroup(k_docker_v1_cgroup)) == "v1");
  CHECK(cgroup_version({}, parse_proc_cgroup(k_hybrid_cgroup)) == "hybrid");
  CHECK(cgroup_version({}, {}) == std::nullopt);
}

TEST_CASE("cgroups: devices.list", "[probes][cgroups]") {
  // Docker's default list for a container plus the nodes the NVIDIA hook whitelisted
  // ("whitelisting device node 195:255", nvidia-docker#1515).
  auto rules = parse_devices_list(
      "c 1:5 rwm\nc 1:3 rwm\nc *:* m\nb *:* m\nc 136:* rwm\nc 195:255 rw\nc 195:0 rw\nc 238:0 rw\nc 238:1 rw\n");
  CHECK(rules.size() == 9);
  CHECK(devices_list_allows(rules, 195, 255, "rw"));
  CHECK(devices_list_allows(rules, 195, 0, "rw"));
  CHECK(devices_list_allows(rules, 238, 0, "rw"));
  CHECK_FALSE(devices_list_allows(rules, 195, 1, "rw"));  // only "m" from c *:* m
  CHECK(devices_list_allows(rules, 195, 1, "m"));

  // After `systemctl daemon-reload` with the systemd cgroup driver (nvidia-container-toolkit#251):
  // only "c 195:* m" is left, read and write are gone.
  auto reloaded = parse_devices_list("c 1:3 rwm\nc 195:* m\n");
  CHECK_FALSE(devices_list_allows(reloaded, 195, 0, "rw"));

  // LXC's allow line for every minor of a major, and the allow-all default.
  CHECK(devices_list_allows(parse_devices_list("c 195:* rwm\n"), 195, 254, "rw"));
  CHECK(devices_list_allows(parse_devices_list("a *:* rwm\n"), 238, 0, "rw"));
  // Access may come from two lines.
  CHECK(devices_list_allows(parse_devices_list("c 238:0 r\nc 238:* w\n"), 238, 0, "rw"));
  CHECK(parse_devices_list("x 1:2 rwm\nc 1 rwm\nc 1:2 rwx\n").empty());
}

}  // namespace GD_UNITY_ID
