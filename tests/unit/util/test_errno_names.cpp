#include "util/errno_names.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::errno_from_name;
using gd::errno_name;

TEST_CASE("errno names: the errors host reads meet", "[util][errno_names]") {
  CHECK(errno_name(ENOENT) == "ENOENT");
  CHECK(errno_name(EACCES) == "EACCES");
  CHECK(errno_name(EPERM) == "EPERM");
  CHECK(errno_name(ENXIO) == "ENXIO");
  CHECK(errno_name(ENODEV) == "ENODEV");
  CHECK(errno_name(EISDIR) == "EISDIR");
  CHECK(errno_name(ENOTDIR) == "ENOTDIR");
  CHECK(errno_name(ELOOP) == "ELOOP");
  CHECK(errno_name(EINVAL) == "EINVAL");
  CHECK(errno_name(ENAMETOOLONG) == "ENAMETOOLONG");

  CHECK(errno_from_name("ENOENT") == ENOENT);
  CHECK(errno_from_name("EACCES") == EACCES);
  CHECK(errno_from_name("ELOOP") == ELOOP);
  CHECK(errno_from_name("ENODEV") == ENODEV);
}

TEST_CASE("errno names: codes outside the table become E<number> and back", "[util][errno_names]") {
  CHECK(errno_name(4095) == "E4095");
  CHECK(errno_from_name("E4095") == 4095);
  CHECK(errno_from_name("E13") == EACCES);  // the numeric form of a named code is accepted too
}

TEST_CASE("errno names: every code round-trips", "[util][errno_names]") {
  for (int code = 1; code < 200; ++code) {
    CAPTURE(code);
    std::string name = errno_name(code);
    CHECK(name.starts_with("E"));
    CHECK(errno_from_name(name) == code);
  }
}

TEST_CASE("errno names: text that is no errno name is refused", "[util][errno_names]") {
  for (const char* bad : {"", "E", "E0", "E-2", "E+2", "E13x", "E 13", "13", "enoent", "ENOSUCHTHING", "ENOENT "}) {
    CAPTURE(bad);
    CHECK_FALSE(errno_from_name(bad).has_value());
  }
}

}  // namespace GD_UNITY_ID
