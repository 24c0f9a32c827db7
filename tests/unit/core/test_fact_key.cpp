// Fact names checked against the catalogue when the code compiles (core/fact_key.hpp). What must
// not compile is tested by tests/compile_fail/ (a CTest per file); here, what the checked names
// are and do.

#include <catch2/catch.hpp>

#include <string>
#include <type_traits>

#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

namespace {

// The checks run at compile time: a plain name, an instance of a pattern, a pattern, a field.
static_assert("kmod.nvidia.loaded"_fact.view() == "kmod.nvidia.loaded");
static_assert("cuda.device.3.name"_fact.view() == "cuda.device.3.name");  // matches cuda.device.*.name
static_assert("pci.gpu.*.bus_id"_pattern.prefix() == "pci.gpu.");
static_assert("pci.gpu.*.bus_id"_pattern.suffix() == ".bus_id");
static_assert("klog.xid.*"_pattern.suffix().empty());
static_assert(gd::FactField<"nvml.device.*.">("remap.pending").field() == "remap.pending");
// The matcher behind them: `*` stands for one all-digit segment, nothing else.
static_assert(gd::fact_key_detail::names("cuda.device.*.name", "cuda.device.12.name"));
static_assert(!gd::fact_key_detail::names("cuda.device.*.name", "cuda.device.x.name"));
static_assert(!gd::fact_key_detail::names("cuda.device.*.name", "cuda.device.1.2.name"));
static_assert(!gd::fact_key_detail::names("cuda.device.*.name", "cuda.device.1"));
static_assert(!gd::fact_key_detail::names("kmod.nvidia.loaded", "kmod.nvidia.loaded.x"));
static_assert(gd::fact_key_detail::declared("kmod.nvidia.loaded", false));
static_assert(!gd::fact_key_detail::declared("kmod.nvidia.laoded", false));
static_assert(!gd::fact_key_detail::declared("pci.gpu.0.bus_id", true));  // a pattern is written with its `*`
static_assert(gd::fact_key_detail::declared_field("pci.gpu.*.", "bus_id"));
static_assert(!gd::fact_key_detail::declared_field("pci.gpu.*.", "bus"));

// A bare literal does not convert to a FactName: it must go through the check.
static_assert(!std::is_convertible_v<const char (&)[19], gd::FactName>);
static_assert(!std::is_convertible_v<std::string, gd::FactName>);
static_assert(!std::is_convertible_v<std::string_view, gd::FactName>);

}  // namespace

TEST_CASE("fact keys: a pattern and a field give the numbered fact's name", "[core][fact_key]") {
  CHECK("pci.gpu.*.bus_id"_pattern.at(3).str() == "pci.gpu.3.bus_id");
  CHECK("klog.xid.*"_pattern.at_segment("79").str() == "klog.xid.79");
  CHECK(gd::FactField<"cuda.device.*.">("context.result").at(12).str() == "cuda.device.12.context.result");
  CHECK(std::string("kmod.nvidia.loaded"_fact) == "kmod.nvidia.loaded");  // as a source text
}

TEST_CASE("fact keys: checked, built and unchecked names reach the same fact", "[core][fact_key]") {
  gd::FactSet facts;
  facts.set("pci.gpu.*.bus_id"_pattern.at(0), std::string("0000:01:00.0"), "test");
  facts.set("kmod.nvidia.loaded"_fact, true, "test");
  CHECK(facts.get_string("pci.gpu.0.bus_id"_fact) == "0000:01:00.0");
  CHECK(facts.get_string(gd::FactName::unchecked("pci.gpu.0.bus_id")) == "0000:01:00.0");
  CHECK(facts.get_bool(gd::FactField<"pci.gpu.*.">("bus_id").at(1)) == std::nullopt);  // GPU 1: none
  CHECK(facts.get_bool("kmod.nvidia.loaded"_fact) == true);
  // An unchecked name the catalogue lacks is still refused when it is set (a programming error).
  CHECK_THROWS_AS(facts.set(gd::FactName::unchecked("kmod.nvidia.laoded"), true, "test"), std::logic_error);
  CHECK(facts.find(gd::FactName::unchecked("kmod.nvidia.laoded")) == nullptr);
}

}  // namespace GD_UNITY_ID
