#pragma once
// Reading facts in probe tests: the state, the reason, a list value; each REQUIREs the fact, so
// a probe that stops producing it fails the test with the fact's name.

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/fact_set.hpp"

namespace gd::test {

inline FactState state_of(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(gd::FactName::unchecked(name));
  INFO("fact " << name);
  REQUIRE(fact);
  return fact->state;
}

inline std::string reason_of(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(gd::FactName::unchecked(name));
  INFO("fact " << name);
  REQUIRE(fact);
  return fact->reason;
}

inline std::vector<std::string> list_of(const FactSet& facts, std::string_view name) {
  const Fact* fact = facts.find(gd::FactName::unchecked(name));
  INFO("fact " << name);
  REQUIRE(fact);
  REQUIRE(fact->state == FactState::present);
  return std::get<std::vector<std::string>>(fact->value);
}

// The same for names checked when the test compiles ("rdma.hcas"_fact).
inline FactState state_of(const FactSet& facts, FactName name) { return state_of(facts, name.view()); }
inline std::vector<std::string> list_of(const FactSet& facts, FactName name) { return list_of(facts, name.view()); }

}  // namespace gd::test
