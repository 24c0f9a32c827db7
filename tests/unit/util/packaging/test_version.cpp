#include "util/packaging/version.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "packaging_oracle.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::parse_python_version;
using gd::PythonVersion;
using namespace gd::test;

TEST_CASE("python versions: parse and normalize as packaging does", "[python][probes][packaging]") {
  REQUIRE(rows("norm").size() >= 70);
  for (const auto& row : rows("norm")) {
    INFO("version " << row[1]);
    auto v = parse_python_version(row[1]);
    REQUIRE(v);
    CHECK(v->text() == row[2]);
  }
  REQUIRE(rows("invalid").size() >= 20);
  for (const auto& row : rows("invalid")) {
    INFO("version " << row[1]);
    CHECK_FALSE(parse_python_version(row[1]));
  }
}

TEST_CASE("python versions: order as packaging orders them", "[python][probes][packaging]") {
  REQUIRE(rows("cmp").size() >= 3000);
  for (const auto& row : rows("cmp")) {
    INFO(row[1] << " vs " << row[2]);
    auto a = parse_python_version(row[1]);
    auto b = parse_python_version(row[2]);
    REQUIRE(a);
    REQUIRE(b);
    auto order = *a <=> *b;
    int got = order < 0 ? -1 : (order > 0 ? 1 : 0);
    CHECK(got == std::stoi(row[3]));
  }
}

TEST_CASE("python versions: the parts of a CUDA wheel's version", "[python][probes][packaging]") {
  auto nightly = parse_python_version("2.11.0.dev20260109+cu130");
  REQUIRE(nightly);
  CHECK(nightly->release == std::vector<std::uint64_t>{2, 11, 0});
  CHECK(nightly->dev == 20260109u);
  CHECK(nightly->local == std::vector<std::string>{"cu130"});
  CHECK(nightly->is_prerelease());
  CHECK(nightly->public_version().text() == "2.11.0.dev20260109");
  CHECK(nightly->base_version().text() == "2.11.0");

  auto flash = parse_python_version("2.7.4.post1+cu12torch2.6cxx11abiFALSE");
  REQUIRE(flash);
  CHECK(flash->post == 1u);
  CHECK(flash->local == std::vector<std::string>{"cu12torch2", "6cxx11abifalse"});

  // Numbers beyond 64 bits are refused rather than wrapped.
  CHECK_FALSE(parse_python_version("18446744073709551616.0"));
  CHECK(parse_python_version("18446744073709551615.0"));
}

}  // namespace GD_UNITY_ID
