#include "probes/limits/shm_mount.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::TmpfsSize;

namespace {

// A Docker container's /proc/self/mountinfo (docker run without --shm-size), shortened: the
// runtime's 64 MiB tmpfs named "shm".
constexpr std::string_view k_docker_mountinfo =
    "612 543 0:71 / / rw,relatime master:313 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/5XQ2:/var/lib/docker/overlay2/l/KQ7G\n"
    "613 612 0:74 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw\n"
    "614 612 0:75 / /dev rw,nosuid - tmpfs tmpfs rw,size=65536k,mode=755,inode64\n"
    "615 614 0:77 / /dev/pts rw,nosuid,noexec,relatime - devpts devpts rw,gid=5,mode=620,ptmxmode=666\n"
    "616 614 0:73 / /dev/mqueue rw,nosuid,nodev,noexec,relatime - mqueue mqueue rw\n"
    "620 614 0:72 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64\n";

// The real H200 capture's (tests/hosts/h200-live-full): the host's /dev/shm (no size=: half of
// RAM would not print one, this one says 131981020k) with the sandbox's 128 GiB tmpfs mounted over it.
constexpr std::string_view k_h200_mountinfo =
    "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=65984560k,nr_inodes=16496140,mode=755\n"
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=131981020k\n"
    "28 27 0:25 / /mnt/sandboxing/model_tools_env/v1/python ro,nosuid,nodev,relatime - tmpfs model_tools_unavailable ro,size=4k,mode=755\n"
    "31 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=134217728k\n";

}  // namespace

TEST_CASE("shm mount: the /dev/shm line of a Docker container", "[probes][limits]") {
  auto mount = gd::find_shm_mount(k_docker_mountinfo);
  REQUIRE(mount);
  CHECK(mount->fstype == "tmpfs");
  CHECK(mount->super_options == "rw,size=65536k,inode64");
  TmpfsSize size = gd::tmpfs_size(mount->super_options);
  CHECK(size.kind == TmpfsSize::Kind::bytes);
  CHECK(size.bytes == 64u * 1024 * 1024);
}

TEST_CASE("shm mount: the topmost of stacked mounts counts", "[probes][limits]") {
  auto mount = gd::find_shm_mount(k_h200_mountinfo);
  REQUIRE(mount);
  CHECK(gd::tmpfs_size(mount->super_options).bytes == 128ull * 1024 * 1024 * 1024);
}

TEST_CASE("shm mount: none, and lines that are not mounts", "[probes][limits]") {
  CHECK_FALSE(gd::find_shm_mount(""));
  CHECK_FALSE(gd::find_shm_mount("613 612 0:74 / /proc rw,nosuid - proc proc rw\n"));
  // /dev/shm inside another path, or a line cut before its separator: not it.
  CHECK_FALSE(gd::find_shm_mount("620 614 0:72 / /dev/shm/x rw - tmpfs shm rw,size=1k\n"));
  CHECK_FALSE(gd::find_shm_mount("620 614 0:72 / /dev/shm rw,nosuid\n"));
  // An optional field (propagation) before the separator, and no super options at all.
  auto mount = gd::find_shm_mount("620 614 0:72 / /dev/shm rw master:7 - tmpfs shm\n");
  REQUIRE(mount);
  CHECK(mount->fstype == "tmpfs");
  CHECK(mount->super_options.empty());
}

TEST_CASE("shm mount: tmpfs sizes as the kernel prints them", "[probes][limits]") {
  CHECK(gd::tmpfs_size("rw,nosuid,nodev").kind == TmpfsSize::Kind::default_);  // the default: half of RAM
  CHECK(gd::tmpfs_size("rw,size=0k").kind == TmpfsSize::Kind::unlimited);
  CHECK(gd::tmpfs_size("rw,size=1g").bytes == 1024ull * 1024 * 1024);
  CHECK(gd::tmpfs_size("rw,size=512m").bytes == 512ull * 1024 * 1024);
  CHECK(gd::tmpfs_size("rw,size=4096").bytes == 4096);
  CHECK(gd::tmpfs_size("rw,size=50%").kind == TmpfsSize::Kind::malformed);
  CHECK(gd::tmpfs_size("rw,size=k").kind == TmpfsSize::Kind::malformed);
  CHECK(gd::tmpfs_size("rw,size=99999999999999999999k").kind == TmpfsSize::Kind::malformed);
  // nr_inodes= and other options are not the size.
  CHECK(gd::tmpfs_size("rw,nr_inodes=16496140,mode=755").kind == TmpfsSize::Kind::default_);
}

TEST_CASE("shm mount: MemTotal from /proc/meminfo", "[probes][limits]") {
  // This machine's first lines, verbatim.
  constexpr std::string_view k_meminfo = "MemTotal:       24683784 kB\nMemFree:         1826844 kB\nMemAvailable:   18235000 kB\n";
  CHECK(gd::meminfo_total_bytes(k_meminfo) == 24683784ull * 1024);
  CHECK_FALSE(gd::meminfo_total_bytes("MemFree:         1826844 kB\n"));
  CHECK_FALSE(gd::meminfo_total_bytes("MemTotal:       lots kB\n"));
  CHECK_FALSE(gd::meminfo_total_bytes("MemTotal:       24683784 MB\n"));
}

}  // namespace GD_UNITY_ID
