#include "core/fact.hpp"

namespace gd {

std::string_view to_string(FactType type) {
  switch (type) {
    case FactType::boolean: return "bool";
    case FactType::integer: return "int";
    case FactType::string: return "string";
    case FactType::version: return "version";
    case FactType::list: return "list";
  }
  return "?";
}

std::string_view to_string(FactState state) {
  switch (state) {
    case FactState::present: return "present";
    case FactState::absent: return "absent";
    case FactState::unknown: return "unknown";
  }
  return "?";
}

std::string value_text(const FactValue& value) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::string>& list) const {
      std::string out = "[";
      for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", " : "") + list[i];
      }
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

std::string fact_text(const Fact& fact) {
  switch (fact.state) {
    case FactState::present: return value_text(fact.value);
    case FactState::absent: return "absent";
    case FactState::unknown: return fact.reason.empty() ? "unknown" : "unknown (" + fact.reason + ")";
  }
  return "?";
}

}  // namespace gd
