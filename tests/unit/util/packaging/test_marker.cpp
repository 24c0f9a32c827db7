#include "util/packaging/marker.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "packaging_oracle.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Marker;
using gd::MarkerEnv;
using gd::parse_marker;
using namespace gd::test;

TEST_CASE("markers: evaluate as packaging does", "[python][probes][packaging]") {
  std::map<std::string, MarkerEnv> envs;
  for (const auto& row : rows("env")) {
    envs[row[1]] = env_from_oracle(row[1]);
  }
  REQUIRE(envs.size() == 3);
  REQUIRE(rows("marker").size() >= 700);
  for (const auto& row : rows("marker")) {
    INFO("env " << row[1] << " extra '" << row[2] << "' marker " << row[3]);
    auto marker = parse_marker(row[3]);
    REQUIRE(marker);
    MarkerEnv env = envs.at(row[1]);
    if (!row[2].empty()) {
      env.extras = {row[2]};
    }
    auto applies = gd::marker_applies(*marker, env);
    if (row[4] == "error") {
      CHECK_FALSE(applies);  // packaging raises: gpudoctor cannot tell either
    } else {
      REQUIRE(applies);
      CHECK(*applies == (row[4] == "1"));
    }
  }
  REQUIRE(rows("badmarker").size() >= 14);
  for (const auto& row : rows("badmarker")) {
    INFO("marker " << row[1]);
    CHECK_FALSE(parse_marker(row[1]));
  }
}

TEST_CASE("markers: what gpudoctor does not know stays unknown", "[python][probes][packaging]") {
  MarkerEnv env;  // only the kernel's answers: Linux on x86_64, the Python version unknown
  env.platform_system = "Linux";
  env.platform_machine = "x86_64";
  auto torch_nvidia = parse_marker(R"(platform_system == "Linux" and platform_machine == "x86_64")");
  REQUIRE(torch_nvidia);
  CHECK(gd::marker_applies(*torch_nvidia, env) == true);
  auto triton = parse_marker(R"(platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.12")");
  REQUIRE(triton);
  CHECK_FALSE(gd::marker_applies(*triton, env));  // depends on the unknown Python version
  // Kleene logic: a known false decides an "and", a known true decides an "or".
  auto not_mac = parse_marker(R"(sys_platform == "darwin" and python_version < "3.12")");
  auto linux_or = parse_marker(R"(platform_system == "Linux" or python_version < "3.9")");
  REQUIRE(not_mac);
  REQUIRE(linux_or);
  env.sys_platform = "linux";
  CHECK(gd::marker_applies(*not_mac, env) == false);
  CHECK(gd::marker_applies(*linux_or, env) == true);
  // An untagged CPython build reports "3.12.0+"; it still compares, as a local version.
  auto full = parse_marker(R"(python_full_version >= "3.12")");
  REQUIRE(full);
  env.python_full_version = "3.12.0+";
  CHECK(gd::marker_applies(*full, env) == true);
}

TEST_CASE("markers: an extra's requirement is not a hard dependency", "[python][probes][packaging]") {
  MarkerEnv env = linux_x86_64_py312();
  auto marker = parse_marker(R"(extra == "opt-einsum")");
  REQUIRE(marker);
  CHECK(gd::marker_mentions_extra(*marker));
  CHECK(gd::marker_applies(*marker, env) == false);
  env.extras = {"opt_einsum"};  // extras compare by normalized name (PEP 685)
  CHECK(gd::marker_applies(*marker, env) == true);
  env.extras = {"cudart", "opt-einsum"};
  CHECK(gd::marker_applies(*marker, env) == true);

  // torch 2.11.0 asks cuda-toolkit[cublas,cudart,...]; cuda-toolkit's METADATA then applies
  // "nvidia-cuda-runtime==13.0.96.*; (sys_platform == 'linux' or sys_platform == 'win32') and extra == 'cudart'".
  auto cudart = parse_marker("(sys_platform == 'linux' or sys_platform == 'win32') and extra == 'cudart'");
  REQUIRE(cudart);
  env.extras = {"cublas", "cudart", "cufft"};
  CHECK(gd::marker_applies(*cudart, env) == true);
  env.extras = {"cublas"};
  CHECK(gd::marker_applies(*cudart, env) == false);
  env.extras.clear();
  CHECK(gd::marker_applies(*cudart, env) == false);

  auto platform_only = parse_marker(R"(platform_system == "Linux")");
  REQUIRE(platform_only);
  CHECK_FALSE(gd::marker_mentions_extra(*platform_only));
}

}  // namespace GD_UNITY_ID
