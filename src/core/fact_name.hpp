#pragma once
// A fact's name as the FactSet takes it. A name written in the code is checked against the
// catalogue when it compiles ("kmod.nvidia.loaded"_fact, core/fact_key.hpp); a bare literal does
// not convert, so a probe, cross-check or overview line that sets or reads a misspelt fact fails
// to build instead of finding nothing when it runs. A name known only at run time (a rule's, a
// facts dump's, the helper's reply) is wrapped with FactName::unchecked, which says so.

#include <cstddef>
#include <string>
#include <string_view>

namespace gd {

class FactName {
 public:
  /// A literal must be checked: write "kmod.nvidia.loaded"_fact (core/fact_key.hpp).
  template <std::size_t N>
  FactName(const char (&literal)[N]) = delete;

  /// A name read at run time. Nothing checks it when the code compiles; FactSet::set still refuses
  /// a name the catalogue lacks when it runs, and a read of an unknown name finds nothing.
  static constexpr FactName unchecked(std::string_view name) { return FactName(name); }

  constexpr std::string_view view() const { return m_name; }
  friend constexpr bool operator==(FactName a, FactName b) { return a.m_name == b.m_name; }
  friend bool operator==(FactName a, const std::string& b) { return a.m_name == b; }
  /// Read as text (a table of names, a message, a source): only the way in is checked.
  constexpr operator std::string_view() const { return m_name; }  // NOLINT: implicit on purpose
  std::string str() const { return std::string(m_name); }
  /// As a fact's source ("kmod.nvidia.version" for a fact derived from it).
  operator std::string() const { return std::string(m_name); }  // NOLINT: implicit on purpose

 private:
  constexpr explicit FactName(std::string_view name) : m_name(name) {}

  std::string_view m_name;
};

/// A name made at run time from a checked pattern ("pci.gpu.*.bus_id" for GPU 3): it owns its text
/// and converts to the FactName that views it, for the call it is passed to.
class BuiltFactName {
 public:
  explicit BuiltFactName(std::string name) : m_name(std::move(name)) {}
  operator FactName() const { return FactName::unchecked(m_name); }  // NOLINT: implicit on purpose
  const std::string& str() const { return m_name; }

 private:
  std::string m_name;
};

}  // namespace gd
