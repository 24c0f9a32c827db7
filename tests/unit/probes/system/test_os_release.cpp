#include "probes/system/os_release.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::parse_os_release;

namespace {

// observations.md of the real H200 host (shared/fixtures/real/h200-container-580.159.04): the
// three lines it printed of Ubuntu 24.04's os-release.
constexpr std::string_view k_ubuntu_2404_observed =
    "PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\n"
    "NAME=\"Ubuntu\"\n"
    "VERSION_ID=\"24.04\"\n";

// NixOS 25.05, github.com/which-distro/os-release nixos/25.05 (taken from the release image).
constexpr std::string_view k_nixos_2505 =
    "ANSI_COLOR=\"0;38;2;126;186;228\"\n"
    "BUG_REPORT_URL=\"https://github.com/NixOS/nixpkgs/issues\"\n"
    "BUILD_ID=\"25.05.804936.a676066377a2\"\n"
    "CPE_NAME=\"cpe:/o:nixos:nixos:25.05\"\n"
    "DEFAULT_HOSTNAME=nixos\n"
    "DOCUMENTATION_URL=\"https://nixos.org/learn.html\"\n"
    "HOME_URL=\"https://nixos.org/\"\n"
    "ID=nixos\n"
    "ID_LIKE=\"\"\n"
    "IMAGE_ID=\"\"\n"
    "IMAGE_VERSION=\"\"\n"
    "LOGO=\"nix-snowflake\"\n"
    "NAME=NixOS\n"
    "PRETTY_NAME=\"NixOS 25.05 (Warbler)\"\n"
    "SUPPORT_END=\"2025-12-31\"\n"
    "SUPPORT_URL=\"https://nixos.org/community.html\"\n"
    "VARIANT=\"\"\n"
    "VARIANT_ID=\"\"\n"
    "VENDOR_NAME=NixOS\n"
    "VENDOR_URL=\"https://nixos.org/\"\n"
    "VERSION=\"25.05 (Warbler)\"\n"
    "VERSION_CODENAME=warbler\n"
    "VERSION_ID=\"25.05\"\n";

// Alpine 3.19.8, github.com/which-distro/os-release alpine/3.19.8.
constexpr std::string_view k_alpine_3198 =
    "NAME=\"Alpine Linux\"\n"
    "ID=alpine\n"
    "VERSION_ID=3.19.8\n"
    "PRETTY_NAME=\"Alpine Linux v3.19\"\n"
    "HOME_URL=\"https://alpinelinux.org/\"\n"
    "BUG_REPORT_URL=\"https://gitlab.alpinelinux.org/alpine/aports/-/issues\"\n";

// Debian 12, this project's build machine's /etc/os-release.
constexpr std::string_view k_debian_12 =
    "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
    "NAME=\"Debian GNU/Linux\"\n"
    "VERSION_ID=\"12\"\n"
    "VERSION=\"12 (bookworm)\"\n"
    "VERSION_CODENAME=bookworm\n"
    "ID=debian\n"
    "HOME_URL=\"https://www.debian.org/\"\n"
    "SUPPORT_URL=\"https://www.debian.org/support\"\n"
    "BUG_REPORT_URL=\"https://bugs.debian.org/\"\n";

}  // namespace

TEST_CASE("os-release: real files", "[probes][os_release]") {
  auto ubuntu = parse_os_release(k_ubuntu_2404_observed);
  CHECK(ubuntu.size() == 3);
  CHECK(ubuntu["PRETTY_NAME"] == "Ubuntu 24.04.3 LTS");
  CHECK(ubuntu["VERSION_ID"] == "24.04");
  CHECK_FALSE(ubuntu.contains("ID"));

  auto nixos = parse_os_release(k_nixos_2505);
  CHECK(nixos["ID"] == "nixos");
  CHECK(nixos["VERSION_ID"] == "25.05");
  CHECK(nixos["ID_LIKE"].empty());
  CHECK(nixos["PRETTY_NAME"] == "NixOS 25.05 (Warbler)");
  CHECK(nixos["DEFAULT_HOSTNAME"] == "nixos");

  auto alpine = parse_os_release(k_alpine_3198);
  CHECK(alpine["ID"] == "alpine");
  CHECK(alpine["VERSION_ID"] == "3.19.8");
  CHECK(alpine["NAME"] == "Alpine Linux");

  auto debian = parse_os_release(k_debian_12);
  CHECK(debian["ID"] == "debian");
  CHECK(debian["VERSION_ID"] == "12");
  CHECK(debian["VERSION"] == "12 (bookworm)");
}

TEST_CASE("os-release: quoting, escapes, comments, junk", "[probes][os_release]") {
  auto fields = parse_os_release(
      "# a comment\n"
      "  ID=rhel\n"
      "ID_LIKE=\"fedora\"\n"
      "NAME='Red Hat Enterprise Linux'\n"
      "PRETTY_NAME=\"Say \\\"hi\\\" for \\$5 \\\\ \\`x\\` \\n\"\n"
      "VERSION_ID=\"9.4\"   \r\n"
      "=novalue\n"
      "9KEY=bad\n"
      "BAD-KEY=x\n"
      "no equals sign\n"
      "EMPTY=\n"
      "ID=override");
  CHECK(fields["ID"] == "override");  // the last assignment wins, as in a shell
  CHECK(fields["ID_LIKE"] == "fedora");
  CHECK(fields["NAME"] == "Red Hat Enterprise Linux");
  CHECK(fields["PRETTY_NAME"] == "Say \"hi\" for $5 \\ `x` \\n");
  CHECK(fields["VERSION_ID"] == "9.4");
  CHECK(fields["EMPTY"].empty());
  CHECK_FALSE(fields.contains("9KEY"));
  CHECK_FALSE(fields.contains("BAD-KEY"));
  CHECK(fields.size() == 6);
  CHECK(parse_os_release("").empty());
  CHECK(parse_os_release(std::string(1 << 16, '\n')).empty());
}

}  // namespace GD_UNITY_ID
