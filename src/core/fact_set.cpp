#include "core/fact_set.hpp"

#include <stdexcept>

#include "core/fact_catalog.hpp"

namespace gd {
namespace {

bool value_matches_type(const FactValue& value, FactType type) {
  switch (type) {
    case FactType::boolean: return std::holds_alternative<bool>(value);
    case FactType::integer: return std::holds_alternative<std::int64_t>(value);
    case FactType::string:
    case FactType::version: return std::holds_alternative<std::string>(value);
    case FactType::list: return std::holds_alternative<std::vector<std::string>>(value);
  }
  return false;
}

FactType declared_type(std::string_view name) {
  auto spec = find_fact_spec(name);
  if (!spec) {
    throw std::logic_error("fact '" + std::string(name) + "' is not in the fact catalogue");
  }
  return spec->type;
}

}  // namespace

void FactSet::set(FactName name, FactValue value, std::string source) {
  Fact fact;
  fact.name = name.str();
  fact.type = declared_type(name.view());
  fact.state = FactState::present;
  fact.value = std::move(value);
  fact.source = std::move(source);
  put(std::move(fact));
}

void FactSet::set_absent(FactName name, std::string source, std::string note) {
  Fact fact;
  fact.name = name.str();
  fact.type = declared_type(name.view());
  fact.state = FactState::absent;
  fact.reason = std::move(note);
  fact.source = std::move(source);
  put(std::move(fact));
}

void FactSet::set_unknown(FactName name, std::string reason, std::string source) {
  Fact fact;
  fact.name = name.str();
  fact.type = declared_type(name.view());
  fact.state = FactState::unknown;
  fact.reason = std::move(reason);
  fact.source = std::move(source);
  put(std::move(fact));
}

void FactSet::put(Fact fact) {
  FactType type = declared_type(fact.name);
  if (fact.type != type) {
    throw std::logic_error("fact '" + fact.name + "' has type " + std::string(to_string(fact.type)) +
                           ", the catalogue says " + std::string(to_string(type)));
  }
  if (fact.state == FactState::present && !value_matches_type(fact.value, type)) {
    throw std::logic_error("fact '" + fact.name + "' holds a value that is not of type " +
                           std::string(to_string(type)));
  }
  std::string key = fact.name;
  m_facts.insert_or_assign(std::move(key), std::move(fact));
}

const Fact* FactSet::find(FactName name) const {
  auto it = m_facts.find(name.view());
  return it == m_facts.end() ? nullptr : &it->second;
}

bool FactSet::is_present(FactName name) const {
  const Fact* fact = find(name);
  return fact && fact->state == FactState::present;
}

std::optional<std::int64_t> FactSet::get_int(FactName name) const {
  const Fact* fact = find(name);
  if (fact && fact->state == FactState::present) {
    if (auto* v = std::get_if<std::int64_t>(&fact->value)) {
      return *v;
    }
  }
  return std::nullopt;
}

std::optional<std::string> FactSet::get_string(FactName name) const {
  const Fact* fact = find(name);
  if (fact && fact->state == FactState::present) {
    if (auto* v = std::get_if<std::string>(&fact->value)) {
      return *v;
    }
  }
  return std::nullopt;
}

std::optional<bool> FactSet::get_bool(FactName name) const {
  const Fact* fact = find(name);
  if (fact && fact->state == FactState::present) {
    if (auto* v = std::get_if<bool>(&fact->value)) {
      return *v;
    }
  }
  return std::nullopt;
}

}  // namespace gd
