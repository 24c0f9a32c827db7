#pragma once
// Fact names written in the code, checked against the catalogue (the layers' sections that
// core/all_layers.hpp names) when the code compiles:
//
//   facts.set("kmod.nvidia.loaded"_fact, true, source);           // a name
//   constexpr FactPattern k_bus = "pci.gpu.*.bus_id"_pattern;    // a family of per-GPU names
//   facts.find(k_bus.at(3));                                       // pci.gpu.3.bus_id
//
// A name or pattern the catalogue lacks stops the build at the literal, in a call to
// fact_name_is_not_in_the_catalogue (or its pattern twin). The catalogue stays the one list: the
// check reads it, nothing is generated. A `*` segment stands for one number (a device ordinal, an
// Xid code), as in the catalogue (core/fact_catalog.hpp).

#include <cstdint>
#include <string>
#include <string_view>

#include "core/all_layers.hpp"
#include "core/fact_name.hpp"

namespace gd {

namespace fact_key_detail {

// Not constexpr, and never defined: a constant evaluation that reaches one stops the build with
// the function's name as the message.
void fact_name_is_not_in_the_catalogue();
void fact_pattern_is_not_in_the_catalogue();
void a_pattern_is_written_with_the_pattern_suffix();
void a_pattern_has_exactly_one_star();
void fact_field_is_not_in_the_catalogue();

consteval bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

/// Whether `name` is what catalogue entry `declared` names: the same text, or, for a pattern, the
/// same segments with a number where it has `*`.
consteval bool names(std::string_view declared, std::string_view name) {
  while (true) {
    std::size_t d = declared.find('.');
    std::size_t n = name.find('.');
    std::string_view d_segment = declared.substr(0, d);
    std::string_view n_segment = name.substr(0, n);
    if (d_segment != n_segment && !(d_segment == "*" && all_digits(n_segment))) return false;
    if (d == std::string_view::npos || n == std::string_view::npos) return d == n;
    declared.remove_prefix(d + 1);
    name.remove_prefix(n + 1);
  }
}

/// Whether the catalogue has `name`: a plain name, or an instance of a pattern (exact = false);
/// a pattern itself, written as in the catalogue (exact = true). The plain comparison runs first
/// and alone for nearly every name: the segment match is the expensive part of a build's checks.
consteval bool declared(std::string_view name, bool exact) {
  for (const Layer& layer : all_layers()) {
    for (CatalogSection section : layer.sections) {
      for (const FactSpec& spec : section()) {
        if (spec.name == name) return true;
      }
    }
  }
  if (exact) return false;
  for (const Layer& layer : all_layers()) {
    for (CatalogSection section : layer.sections) {
      for (const FactSpec& spec : section()) {
        if (spec.name.find('*') != std::string_view::npos && names(spec.name, name)) return true;
      }
    }
  }
  return false;
}

/// Whether the catalogue has pattern `family` + `field` ("cuda.device.*." + "name").
consteval bool declared_field(std::string_view family, std::string_view field) {
  for (const Layer& layer : all_layers()) {
    for (CatalogSection section : layer.sections) {
      for (const FactSpec& spec : section()) {
        if (spec.name.size() == family.size() + field.size() && spec.name.starts_with(family) &&
            spec.name.ends_with(field)) {
          return true;
        }
      }
    }
  }
  return false;
}

/// A string literal as a template argument (FactField<"cuda.device.*.">).
template <std::size_t N>
struct FixedString {
  char text[N] = {};
  consteval FixedString(const char (&literal)[N]) {
    for (std::size_t i = 0; i < N; ++i) text[i] = literal[i];
  }
  constexpr std::string_view view() const { return std::string_view(text, N - 1); }
};

}  // namespace fact_key_detail

/// A family of facts, one per GPU, library or code: a catalogue pattern with one `*`.
class FactPattern {
 public:
  static consteval FactPattern checked(std::string_view pattern) {
    std::size_t star = pattern.find('*');
    if (star == std::string_view::npos || pattern.find('*', star + 1) != std::string_view::npos) {
      fact_key_detail::a_pattern_has_exactly_one_star();
    }
    if (!fact_key_detail::declared(pattern, true)) fact_key_detail::fact_pattern_is_not_in_the_catalogue();
    return FactPattern(pattern);
  }

  constexpr std::string_view view() const { return m_pattern; }
  /// As a fact's source ("pci.gpu.*.gsp_firmware_file" for a fact derived from every GPU's).
  operator std::string() const { return std::string(m_pattern); }  // NOLINT: implicit on purpose
  /// What comes before the `*` ("pci.gpu." of "pci.gpu.*.bus_id") and after it (".bus_id").
  constexpr std::string_view prefix() const { return m_pattern.substr(0, m_pattern.find('*')); }
  constexpr std::string_view suffix() const { return m_pattern.substr(m_pattern.find('*') + 1); }

  /// The fact of number `index`.
  BuiltFactName at(std::int64_t index) const { return at_segment(std::to_string(index)); }
  /// The fact whose `*` segment is `segment` (digits, as the catalogue's `*` matches).
  BuiltFactName at_segment(std::string_view segment) const {
    std::string name(prefix());
    name += segment;
    name += suffix();
    return BuiltFactName(std::move(name));
  }

 private:
  constexpr explicit FactPattern(std::string_view pattern) : m_pattern(pattern) {}

  std::string_view m_pattern;
};

/// One field of a family of facts, checked when it compiles: with
///   using DeviceField = FactField<"cuda.device.*.">;
///   auto key = [&](DeviceField field) { return field.at(dev.index); };
/// `key("name")` is cuda.device.N.name, and `key("nmae")` does not compile.
template <fact_key_detail::FixedString Family>
class FactField {
 public:
  consteval FactField(const char* field) : m_field(field) {  // NOLINT: implicit on purpose
    if (!fact_key_detail::declared_field(Family.view(), m_field)) fact_key_detail::fact_field_is_not_in_the_catalogue();
  }

  constexpr std::string_view field() const { return m_field; }
  /// The field's fact of number `index`.
  BuiltFactName at(std::int64_t index) const {
    std::string_view family = Family.view();
    std::size_t star = family.find('*');
    std::string name(family.substr(0, star));
    name += std::to_string(index);
    name += family.substr(star + 1);
    name += m_field;
    return BuiltFactName(std::move(name));
  }

 private:
  std::string_view m_field;
};

// The literals live in an inline namespace: code in gd sees them, and a test (outside gd) says
// `using namespace gd::fact_literals;`.
inline namespace fact_literals {

/// "kmod.nvidia.loaded"_fact: a fact's name, checked against the catalogue when it compiles.
/// "cuda.device.0.name" is also accepted (an instance of a pattern).
consteval FactName operator""_fact(const char* text, std::size_t size) {
  std::string_view name(text, size);
  if (name.find('*') != std::string_view::npos) fact_key_detail::a_pattern_is_written_with_the_pattern_suffix();
  if (!fact_key_detail::declared(name, false)) fact_key_detail::fact_name_is_not_in_the_catalogue();
  return FactName::unchecked(name);
}

/// "pci.gpu.*.bus_id"_pattern: a catalogue pattern, checked when it compiles.
consteval FactPattern operator""_pattern(const char* text, std::size_t size) {
  return FactPattern::checked(std::string_view(text, size));
}

}  // namespace fact_literals

}  // namespace gd
