#pragma once
// The set of facts one run collected: what the rules see, and nothing else.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.hpp"
#include "core/fact_name.hpp"

namespace gd {

class FactSet {
 public:
  // Names are FactName: "x.y"_fact (core/fact_key.hpp), checked when the code compiles, or
  // FactName::unchecked for a name read at run time.

  /// Record a present fact. The name must be in the catalogue and the value of its type:
  /// a mismatch is a programming error and throws std::logic_error.
  void set(FactName name, FactValue value, std::string source = {});
  void set_absent(FactName name, std::string source = {}, std::string note = {});
  void set_unknown(FactName name, std::string reason, std::string source = {});
  /// Store a fact as it was read from a facts dump (validated the same way).
  void put(Fact fact);

  /// The fact, or nullptr when no probe produced it (rules treat that as unknown).
  const Fact* find(FactName name) const;
  bool is_present(FactName name) const;
  /// Convenience accessors: the value when present and of that type.
  std::optional<std::int64_t> get_int(FactName name) const;
  std::optional<std::string> get_string(FactName name) const;
  std::optional<bool> get_bool(FactName name) const;

  /// All facts, sorted by name.
  const std::map<std::string, Fact, std::less<>>& all() const { return m_facts; }

 private:
  std::map<std::string, Fact, std::less<>> m_facts;
};

}  // namespace gd
