#include "util/packaging/requirement.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "packaging_oracle.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::MarkerEnv;
using gd::parse_requirement;
using gd::parse_marker;
using gd::parse_python_version;
using gd::parse_specifiers;
using namespace gd::test;

TEST_CASE("requirements: parse as packaging does", "[python][probes][packaging]") {
  MarkerEnv env = env_from_oracle("linux312");
  REQUIRE(rows("req").size() >= 40);
  for (const auto& row : rows("req")) {
    INFO("requirement '" << row[1] << "'");
    auto req = parse_requirement(row[1]);
    REQUIRE(req);
    CHECK(req->name == row[2]);
    CHECK(joined_sorted(req->extras) == row[3]);
    std::vector<std::string> specs;
    for (const auto& spec : req->specifiers) {
      specs.push_back(spec.text());
    }
    CHECK(joined_sorted(specs) == row[4]);
    CHECK(req->url == row[5]);
    if (row[6] == "-") {
      CHECK_FALSE(req->marker);
    } else {
      REQUIRE(req->marker);
      CHECK(gd::marker_applies(*req->marker, env) == (row[6] == "1"));
    }
  }
  REQUIRE(rows("badreq").size() >= 25);
  for (const auto& row : rows("badreq")) {
    INFO("requirement '" << row[1] << "'");
    CHECK_FALSE(parse_requirement(row[1]));
  }
}

TEST_CASE("requirements: torch 2.6.0's Requires-Dist on Linux x86_64", "[python][probes][packaging]") {
  // tests/fixtures/python/torch-2.6.0.pypi-requires-dist: torch 2.6.0's requirements as PyPI
  // lists them. On Linux x86_64 with CPython 3.12 pip installs every non-extra line.
  std::istringstream in(fixture("torch-2.6.0.pypi-requires-dist"));
  std::string line;
  std::vector<std::string> hard;
  std::vector<std::string> optional;
  std::map<std::string, std::string> pins;
  MarkerEnv env = linux_x86_64_py312();
  while (std::getline(in, line)) {
    if (!line.starts_with("Requires-Dist: ")) {
      continue;
    }
    auto req = parse_requirement(line.substr(15));
    REQUIRE(req);
    bool applies = !req->marker || gd::marker_applies(*req->marker, env) == true;
    (applies ? hard : optional).push_back(req->name);
    if (req->specifiers.size() == 1 && req->specifiers[0].op == gd::SpecifierOp::equal) {
      pins[req->name] = req->specifiers[0].version;
    }
  }
  CHECK(hard.size() == 21);
  CHECK(optional == std::vector<std::string>{"opt-einsum", "optree"});
  CHECK(pins.at("nvidia-cuda-runtime-cu12") == "12.4.127");
  CHECK(pins.at("nvidia-cudnn-cu12") == "9.1.0.70");
  CHECK(pins.at("triton") == "3.2.0");
  CHECK(pins.at("sympy") == "1.13.1");

  // The same lines on aarch64: no nvidia-* wheels, no triton (they are x86_64-only there).
  env.platform_machine = "aarch64";
  auto runtime = parse_requirement(
      R"(nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and platform_machine == "x86_64")");
  REQUIRE(runtime);
  CHECK(gd::marker_applies(*runtime->marker, env) == false);
  // And with Python 3.11, setuptools is not required.
  env = linux_x86_64_py312();
  env.python_version = "3.11";
  auto setuptools = parse_requirement(R"(setuptools; python_version >= "3.12")");
  REQUIRE(setuptools);
  CHECK(gd::marker_applies(*setuptools->marker, env) == false);
}

TEST_CASE("requirements: a torch nightly's pytorch-triton pin", "[python][probes][packaging]") {
  // tests/fixtures/python/torch-2.6.0.dev20241222+cu126.requires-dist (astral-sh/uv#10119).
  std::istringstream in(fixture("torch-2.6.0.dev20241222+cu126.requires-dist"));
  std::string line;
  int parsed = 0;
  std::optional<gd::Requirement> triton;
  while (std::getline(in, line)) {
    auto req = parse_requirement(line.substr(line.find(": ") + 2));
    REQUIRE(req);
    ++parsed;
    if (req->name == "pytorch-triton") {
      triton = req;
    }
  }
  CHECK(parsed == 21);
  REQUIRE(triton);
  CHECK(specifiers_allow(triton->specifiers, "3.2.0+git0d4682f0") == true);
  CHECK(specifiers_allow(triton->specifiers, "3.2.0") == false);  // the pin names a local label
  CHECK(gd::marker_applies(*triton->marker, linux_x86_64_py312()) == true);
}

TEST_CASE("requirements: garbage is refused, never a crash", "[python][probes][packaging]") {
  CHECK_FALSE(parse_requirement(R"(torch; platform_system == "Linux)"));  // unterminated quote
  CHECK_FALSE(parse_requirement(R"(torch; ((platform_system == "Linux"))"));
  CHECK_FALSE(parse_requirement(R"(torch; platform_system == "Linux"))"));
  CHECK_FALSE(parse_requirement("torch (>=2.6"));
  CHECK_FALSE(parse_requirement(std::string("torch\0==2.6", 11)));
  CHECK_FALSE(parse_requirement("\xff\xfe torch"));

  std::string deep = "torch; " + std::string(100000, '(') + "os_name == 'posix'" + std::string(100000, ')');
  CHECK_FALSE(parse_requirement(deep));  // too long
  std::string nested = std::string(200, '(') + "os_name == 'posix'" + std::string(200, ')');
  CHECK_FALSE(parse_marker(nested));  // deeper than any real marker
  std::string shallow = std::string(20, '(') + "os_name == 'posix'" + std::string(20, ')');
  auto ok = parse_marker(shallow);
  REQUIRE(ok);
  CHECK(gd::marker_applies(*ok, linux_x86_64_py312()) == true);

  std::string long_or = "os_name == 'nt'";
  for (int i = 0; i < 300; ++i) {
    long_or += " or os_name == 'nt'";
  }
  long_or += " or os_name == 'posix'";
  auto wide = parse_marker(long_or);
  REQUIRE(wide);
  CHECK(gd::marker_applies(*wide, linux_x86_64_py312()) == true);

  CHECK_FALSE(parse_python_version(std::string(1000, '1')));
  CHECK_FALSE(parse_specifiers(std::string(100000, ',') + ">=1"));  // bounded before it is split
  CHECK(parse_specifiers(std::string(100, ',') + ">=1"));        // empty clauses are skipped
}

}  // namespace GD_UNITY_ID
