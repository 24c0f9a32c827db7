// The overview's words for a CUDA library's GPU code: the covering architectures first, with how
// many fat binaries carry them, then those in only a few (probes/python/gpu_code_text.hpp).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/fact_key.hpp"
#include "core/fact_set.hpp"
#include "probes/python/gpu_code_text.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using Names = std::vector<std::string>;

namespace {

gd::FactSet coverage(const std::string& prefix, Names sass_covering, Names sass_partial, Names ptx_covering,
                     Names ptx_partial, Names counts, std::int64_t with_code) {
  gd::FactSet facts;
  facts.set(gd::FactName::unchecked(prefix + "sass_covering"), sass_covering, "test");
  facts.set(gd::FactName::unchecked(prefix + "sass_partial"), sass_partial, "test");
  facts.set(gd::FactName::unchecked(prefix + "ptx_covering"), ptx_covering, "test");
  facts.set(gd::FactName::unchecked(prefix + "ptx_partial"), ptx_partial, "test");
  facts.set(gd::FactName::unchecked(prefix + "fatbin_arch_counts"), counts, "test");
  facts.set(gd::FactName::unchecked(prefix + "fatbins_with_code"), with_code, "test");
  return facts;
}

}  // namespace

TEST_CASE("gpu code text: torch 2.11.0+cu130 of the real H200", "[report][areas][coverage]") {
  auto facts = coverage("torch.", {"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"},
                        {"sm_89", "sm_90a", "sm_100a", "sm_103a", "sm_120a", "sm_121a"}, {}, {},
                        {"sm_75 444/444", "sm_80 444/444", "sm_86 444/444", "sm_89 1/444", "sm_90 444/444",
                         "sm_90a 4/444", "sm_100 444/444", "sm_100a 59/444", "sm_103a 59/444", "sm_120 444/444",
                         "sm_120a 1/444", "sm_121a 1/444"},
                        444);
  CHECK(gd::areas::gpu_code_text(facts, "torch.") ==
        "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 (in all 444 fat binaries); also in a few: sm_89 (1), sm_90a (4), "
        "sm_100a (59), sm_103a (59), sm_120a (1), sm_121a (1)");
}

TEST_CASE("gpu code text: covering counts that differ, PTX, one fat binary", "[report][areas][coverage]") {
  auto range = coverage("ext.0.", {"sm_80", "sm_90"}, {"sm_90a"}, {"compute_90"}, {},
                        {"sm_80 40/40", "sm_90 36/40", "sm_90a 4/40", "compute_90 30/40"}, 40);
  CHECK(gd::areas::gpu_code_text(range, "ext.0.") ==
        "sm_80 sm_90; PTX compute_90 (in 30 to 40 of 40 fat binaries); also in a few: sm_90a (4)");

  auto same = coverage("ext.0.", {"sm_80"}, {}, {}, {"compute_80"}, {"sm_80 3/4", "compute_80 1/4"}, 4);
  CHECK(gd::areas::gpu_code_text(same, "ext.0.") == "sm_80 (in 3 of 4 fat binaries); also in a few: compute_80 (1)");

  auto one = coverage("ext.1.", {"sm_90"}, {}, {"compute_90"}, {}, {"sm_90 1/1", "compute_90 1/1"}, 1);
  CHECK(gd::areas::gpu_code_text(one, "ext.1.") == "sm_90; PTX compute_90 (in its one fat binary)");
}

TEST_CASE("gpu code text: no coverage facts, the caller prints the union", "[report][areas][coverage]") {
  gd::FactSet facts;
  facts.set("torch.sass"_fact, Names{"sm_80"}, "test");
  facts.set("torch.ptx"_fact, Names{}, "test");
  CHECK_FALSE(gd::areas::gpu_code_text(facts, "torch.").has_value());
  facts.set_unknown("torch.sass_covering"_fact, "corrupt", "test");
  facts.set("torch.ptx_covering"_fact, Names{}, "test");
  facts.set("torch.fatbins_with_code"_fact, std::int64_t{3}, "test");
  CHECK_FALSE(gd::areas::gpu_code_text(facts, "torch.").has_value());
}

}  // namespace GD_UNITY_ID
