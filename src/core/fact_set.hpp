#pragma once
// The set of facts one run collected: what the rules see, and nothing else.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fact.hpp"

namespace gd {

class FactSet {
 public:
  /// Record a present fact. The name must be in the catalogue and the value of its type:
  /// a mismatch is a programming error and throws std::logic_error.
  void set(std::string_view name, FactValue value, std::string source = {});
  void set_absent(std::string_view name, std::string source = {}, std::string note = {});
  void set_unknown(std::string_view name, std::string reason, std::string source = {});
  /// Store a fact as it was read from a facts dump (validated the same way).
  void put(Fact fact);

  /// The fact, or nullptr when no probe produced it (rules treat that as unknown).
  const Fact* find(std::string_view name) const;
  bool is_present(std::string_view name) const;
  /// Convenience accessors: the value when present and of that type.
  std::optional<std::int64_t> get_int(std::string_view name) const;
  std::optional<std::string> get_string(std::string_view name) const;
  std::optional<bool> get_bool(std::string_view name) const;

  /// All facts, sorted by name.
  const std::map<std::string, Fact, std::less<>>& all() const { return m_facts; }

 private:
  std::map<std::string, Fact, std::less<>> m_facts;
};

}  // namespace gd
