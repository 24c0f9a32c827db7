#include "probes/devices/device_access.hpp"
#include "probes/shared/account_files.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::FileStat;
using gd::Identity;
using gd::mode_grants_rw;

namespace {

FileStat node(std::uint32_t mode, std::uint32_t uid, std::uint32_t gid) {
  FileStat st;
  st.kind = gd::FileKind::char_device;
  st.mode = mode;
  st.uid = uid;
  st.gid = gid;
  st.major = 195;
  return st;
}

}  // namespace

TEST_CASE("device access: owner, group, other bits", "[probes][device_access]") {
  Identity user{1000, 1000, {27, 44}};
  // The driver's default (NVreg_DeviceFileMode=0666): anyone may open.
  CHECK(mode_grants_rw(node(0666, 0, 0), user));
  // crw-rw---- root:video with the user in video (44): allowed; without it: denied.
  CHECK(mode_grants_rw(node(0660, 0, 44), user));
  CHECK_FALSE(mode_grants_rw(node(0660, 0, 44), Identity{1000, 1000, {}}));
  // Primary group counts too.
  CHECK(mode_grants_rw(node(0660, 0, 1000), Identity{1000, 1000, {}}));
  // The owner class wins even when the group class would allow more.
  CHECK_FALSE(mode_grants_rw(node(0460, 1000, 1000), user));
  // Read-only for others (nvidia-cap2 is cr--r--r--): no write, not openable read-write.
  CHECK_FALSE(mode_grants_rw(node(0444, 0, 0), user));
  // Root passes the mode bits.
  CHECK(mode_grants_rw(node(0400, 0, 0), Identity{0, 0, {}}));
}

TEST_CASE("device access: group names from /etc/group", "[probes][device_access]") {
  constexpr std::string_view k_group = "root:x:0:\nvideo:x:44:alice,bob\nrender:x:109:\nbroken\n";
  CHECK(gd::account_name(k_group, 44) == "video");
  CHECK(gd::account_name(k_group, 109) == "render");
  CHECK(gd::account_name(k_group, 0) == "root");
  CHECK_FALSE(gd::account_name(k_group, 4));
  CHECK_FALSE(gd::account_name("", 44));
  // The same files the other way, and passwd(5) lines, whose id is also the third field.
  CHECK(gd::account_id(k_group, "render") == 109u);
  CHECK_FALSE(gd::account_id(k_group, "broken"));
  CHECK_FALSE(gd::account_id("syslog:x:10x4:1::/:/bin/false\n", "syslog"));
  CHECK(gd::account_id("syslog:x:104:111::/home/syslog:/usr/sbin/nologin\n", "syslog") == 104u);
  CHECK(gd::account_name("syslog:x:104:111::/home/syslog:/usr/sbin/nologin\n", 104) == "syslog");
  CHECK(gd::octal_mode(0666) == "0666");
  CHECK(gd::octal_mode(0100660) == "0660");
}

}  // namespace GD_UNITY_ID
