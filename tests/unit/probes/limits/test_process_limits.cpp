#include "probes/limits/process_limits.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

// /proc/self/limits of a shell on this machine (kernel 6.x: the 8 MiB default), verbatim.
constexpr std::string_view k_limits_8mib =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max file size             unlimited            unlimited            bytes     \n"
    "Max data size             unlimited            unlimited            bytes     \n"
    "Max stack size            8388608              unlimited            bytes     \n"
    "Max core file size        0                    unlimited            bytes     \n"
    "Max resident set          unlimited            unlimited            bytes     \n"
    "Max processes             96367                96367                processes \n"
    "Max open files            20000                20000                files     \n"
    "Max locked memory         8388608              8388608              bytes     \n"
    "Max address space         unlimited            unlimited            bytes     \n"
    "Max file locks            unlimited            unlimited            locks     \n"
    "Max pending signals       96367                96367                signals   \n"
    "Max msgqueue size         819200               819200               bytes     \n"
    "Max nice priority         0                    0                    \n"
    "Max realtime priority     0                    0                    \n"
    "Max realtime timeout      unlimited            unlimited            us        \n";

// /proc/self/status of the same shell, the capability lines (root in a container: every
// capability but a few; bit 14, CAP_IPC_LOCK, is set).
constexpr std::string_view k_status_root =
    "Name:\tcat\nUmask:\t0022\nState:\tR (running)\n"
    "CapInh:\t0000000000000000\nCapPrm:\t000001fffeffffff\nCapEff:\t000001fffeffffff\n"
    "CapBnd:\t000001fffeffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\n";

}  // namespace

TEST_CASE("process limits: Max locked memory", "[probes][limits]") {
  auto limit = gd::parse_memlock_limit(k_limits_8mib);
  REQUIRE(limit);
  CHECK(limit->soft == 8388608u);
  CHECK(limit->hard == 8388608u);

  // docker run --ulimit memlock=-1: both unlimited. Docker's old default: 64 KiB.
  auto unlimited = gd::parse_memlock_limit("Max locked memory         unlimited            unlimited            bytes     \n");
  REQUIRE(unlimited);
  CHECK_FALSE(unlimited->soft);
  CHECK_FALSE(unlimited->hard);
  auto mixed = gd::parse_memlock_limit("Max locked memory         65536                unlimited            bytes     \n");
  REQUIRE(mixed);
  CHECK(mixed->soft == 65536u);
  CHECK_FALSE(mixed->hard);

  CHECK_FALSE(gd::parse_memlock_limit("Max open files            20000                20000                files     \n"));
  CHECK_FALSE(gd::parse_memlock_limit("Max locked memory         lots                 unlimited            bytes\n"));
  CHECK_FALSE(gd::parse_memlock_limit("Max locked memory         8388608\n"));
  CHECK_FALSE(gd::parse_memlock_limit(""));
}

TEST_CASE("process limits: CAP_IPC_LOCK from CapEff", "[probes][limits]") {
  auto mask = gd::parse_effective_capabilities(k_status_root);
  REQUIRE(mask);
  CHECK(*mask == 0x000001fffeffffffull);
  CHECK(gd::has_capability(*mask, gd::k_cap_ipc_lock));
  // Docker's default set for root (CHOWN ... SETFCAP, AUDIT_WRITE, MKNOD): no IPC_LOCK (bit 14).
  auto docker = gd::parse_effective_capabilities("CapEff:\t00000000a80425fb\n");
  REQUIRE(docker);
  CHECK_FALSE(gd::has_capability(*docker, gd::k_cap_ipc_lock));
  // docker run --cap-add=IPC_LOCK adds 0x4000.
  CHECK(gd::has_capability(0x00000000a80465fbull, gd::k_cap_ipc_lock));
  // An ordinary user: none.
  auto user = gd::parse_effective_capabilities("CapEff:\t0000000000000000\n");
  REQUIRE(user);
  CHECK_FALSE(gd::has_capability(*user, gd::k_cap_ipc_lock));
  CHECK_FALSE(gd::parse_effective_capabilities("CapPrm:\t000001fffeffffff\n"));
  CHECK_FALSE(gd::parse_effective_capabilities("CapEff:\tzz\n"));
}

}  // namespace GD_UNITY_ID
