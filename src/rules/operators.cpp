#include "rules/operators.hpp"

#include <array>

namespace gd {
namespace {

constexpr std::array k_operators = {
    OpSpec{Op::equals, "equals", "value equals the operand (versions compared numerically)"},
    OpSpec{Op::not_equals, "not_equals", "value differs from the operand"},
    OpSpec{Op::in, "in", "value is one of the operand array"},
    OpSpec{Op::not_in, "not_in", "value is none of the operand array"},
    OpSpec{Op::gt, "gt", "value > operand (int, or version segment by segment)"},
    OpSpec{Op::ge, "ge", "value >= operand"},
    OpSpec{Op::lt, "lt", "value < operand"},
    OpSpec{Op::le, "le", "value <= operand"},
    OpSpec{Op::contains, "contains", "string contains the operand, or list has it as an element"},
    OpSpec{Op::starts_with, "starts_with", "string starts with the operand, or some list element does"},
    OpSpec{Op::present, "present", "true: the fact is present; false: the fact is absent"},
};

bool is_ordering(Op op) { return op == Op::gt || op == Op::ge || op == Op::lt || op == Op::le; }
bool is_membership(Op op) { return op == Op::in || op == Op::not_in; }
bool is_text(Op op) { return op == Op::contains || op == Op::starts_with; }

std::string type_name(FactType type) { return std::string(to_string(type)); }

std::string check_version_operand(const std::string& text) {
  return is_version(text) ? std::string() : "needs versions of digits and dots like \"580.65.06\"";
}

// The scalar operand for equals/not_equals/ordering on a non-list fact.
std::string check_scalar(FactType type, const Operand& operand) {
  switch (type) {
    case FactType::boolean:
      return std::holds_alternative<bool>(operand) ? std::string() : "needs a boolean operand";
    case FactType::integer:
      return std::holds_alternative<std::int64_t>(operand) ? std::string() : "needs an integer operand";
    case FactType::string:
      return std::holds_alternative<std::string>(operand) ? std::string() : "needs a string operand";
    case FactType::version:
      if (auto* text = std::get_if<std::string>(&operand)) {
        return check_version_operand(*text);
      }
      return "needs a version string operand like \"580.65.06\"";
    case FactType::list:
      return std::holds_alternative<std::vector<std::string>>(operand) ? std::string()
                                                                        : "needs an array of strings";
  }
  return "?";
}

Truth truth(bool value) { return value ? Truth::yes : Truth::no; }

Truth order(Op op, int cmp) {
  switch (op) {
    case Op::gt: return truth(cmp > 0);
    case Op::ge: return truth(cmp >= 0);
    case Op::lt: return truth(cmp < 0);
    case Op::le: return truth(cmp <= 0);
    default: return Truth::unknown;
  }
}

// equals/ordering of a scalar value against a scalar operand; nullopt = cannot compare.
std::optional<int> compare_scalar(const FactValue& value, FactType type, const Operand& operand) {
  if (type == FactType::version) {
    auto* a = std::get_if<std::string>(&value);
    auto* b = std::get_if<std::string>(&operand);
    return a && b ? compare_versions(*a, *b) : std::nullopt;
  }
  if (auto* a = std::get_if<std::int64_t>(&value)) {
    auto* b = std::get_if<std::int64_t>(&operand);
    return b ? std::optional<int>(*a < *b ? -1 : (*a > *b ? 1 : 0)) : std::nullopt;
  }
  if (auto* a = std::get_if<bool>(&value)) {
    auto* b = std::get_if<bool>(&operand);
    return b ? std::optional<int>(*a == *b ? 0 : 1) : std::nullopt;
  }
  if (auto* a = std::get_if<std::string>(&value)) {
    auto* b = std::get_if<std::string>(&operand);
    return b ? std::optional<int>(a->compare(*b)) : std::nullopt;
  }
  if (auto* a = std::get_if<std::vector<std::string>>(&value)) {
    auto* b = std::get_if<std::vector<std::string>>(&operand);
    return b ? std::optional<int>(*a == *b ? 0 : 1) : std::nullopt;
  }
  return std::nullopt;
}

// Whether the value is one of the operand array's elements; nullopt = cannot compare.
std::optional<bool> member_of(const FactValue& value, FactType type, const Operand& operand) {
  bool unknown = false;
  auto one = [&](const Operand& element) -> bool {
    std::optional<int> cmp = compare_scalar(value, type, element);
    unknown = unknown || !cmp;
    return cmp && *cmp == 0;
  };
  if (auto* ints = std::get_if<std::vector<std::int64_t>>(&operand)) {
    for (std::int64_t element : *ints) {
      if (one(element)) {
        return true;
      }
    }
  } else if (auto* texts = std::get_if<std::vector<std::string>>(&operand)) {
    for (const std::string& element : *texts) {
      if (one(element)) {
        return true;
      }
    }
  }
  return unknown ? std::nullopt : std::optional<bool>(false);
}

Truth text_test(Op op, const FactValue& value, const std::string& needle) {
  auto test = [&](std::string_view hay, bool whole_element) {
    if (op == Op::starts_with) {
      return hay.starts_with(needle);
    }
    return whole_element ? hay == needle : hay.find(needle) != std::string_view::npos;
  };
  if (auto* text = std::get_if<std::string>(&value)) {
    return truth(test(*text, false));
  }
  if (auto* list = std::get_if<std::vector<std::string>>(&value)) {
    for (const std::string& element : *list) {
      if (test(element, true)) {
        return Truth::yes;
      }
    }
    return Truth::no;
  }
  return Truth::unknown;
}

}  // namespace

std::string_view to_string(Truth truth) {
  switch (truth) {
    case Truth::no: return "false";
    case Truth::yes: return "true";
    case Truth::unknown: return "unknown";
  }
  return "?";
}

std::span<const OpSpec> operator_table() { return k_operators; }

std::optional<Op> find_op(std::string_view name) {
  for (const OpSpec& spec : k_operators) {
    if (spec.name == name) {
      return spec.op;
    }
  }
  return std::nullopt;
}

std::string_view to_string(Op op) {
  for (const OpSpec& spec : k_operators) {
    if (spec.op == op) {
      return spec.name;
    }
  }
  return "?";
}

bool is_version(std::string_view text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool digit = c >= '0' && c <= '9';
    if (!digit && !(c == '.' && text[i - 1] != '.')) {
      return false;
    }
  }
  return true;
}

std::optional<int> compare_versions(std::string_view a, std::string_view b) {
  if (!is_version(a) || !is_version(b)) {
    return std::nullopt;
  }
  while (!a.empty() || !b.empty()) {
    auto next = [](std::string_view& text) {
      std::size_t dot = text.find('.');
      std::string_view segment = text.substr(0, dot);
      text = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
      // Compare digit strings without overflow: strip leading zeros, then by length, then text.
      std::size_t first = segment.find_first_not_of('0');
      return first == std::string_view::npos ? std::string_view() : segment.substr(first);
    };
    std::string_view x = next(a);
    std::string_view y = next(b);
    if (x.size() != y.size()) {
      return x.size() < y.size() ? -1 : 1;
    }
    if (int cmp = x.compare(y); cmp != 0) {
      return cmp < 0 ? -1 : 1;
    }
  }
  return 0;
}

std::string check_operand(Op op, FactType type, const Operand& operand) {
  std::string where = "operator '" + std::string(to_string(op)) + "' on " + type_name(type) + " fact ";
  if (op == Op::present) {
    return std::holds_alternative<bool>(operand) ? std::string() : where + "needs true or false";
  }
  if (op == Op::equals || op == Op::not_equals) {
    std::string problem = check_scalar(type, operand);
    return problem.empty() ? problem : where + problem;
  }
  if (is_ordering(op)) {
    if (type != FactType::integer && type != FactType::version) {
      return "operator '" + std::string(to_string(op)) + "' needs an int or version fact, not " + type_name(type);
    }
    std::string problem = check_scalar(type, operand);
    return problem.empty() ? problem : where + problem;
  }
  if (is_membership(op)) {
    if (type == FactType::integer) {
      return std::holds_alternative<std::vector<std::int64_t>>(operand) ? std::string()
                                                                        : where + "needs an array of integers";
    }
    if (type == FactType::string || type == FactType::version) {
      auto* texts = std::get_if<std::vector<std::string>>(&operand);
      if (!texts) {
        return where + "needs an array of strings";
      }
      for (const std::string& text : *texts) {
        if (type == FactType::version && !is_version(text)) {
          return where + check_version_operand(text);
        }
      }
      return {};
    }
    return "operator '" + std::string(to_string(op)) + "' needs an int, string or version fact, not " +
           type_name(type);
  }
  if (is_text(op)) {
    if (type == FactType::boolean || type == FactType::integer) {
      return "operator '" + std::string(to_string(op)) + "' needs a string, version or list fact, not " +
             type_name(type);
    }
    return std::holds_alternative<std::string>(operand) ? std::string() : where + "needs a string operand";
  }
  return "unsupported operator";
}

Truth apply_op(Op op, const FactValue& value, FactType type, const Operand& operand) {
  switch (op) {
    case Op::equals:
    case Op::not_equals: {
      std::optional<int> cmp = compare_scalar(value, type, operand);
      if (!cmp) {
        return Truth::unknown;
      }
      return truth((*cmp == 0) == (op == Op::equals));
    }
    case Op::gt:
    case Op::ge:
    case Op::lt:
    case Op::le: {
      std::optional<int> cmp = compare_scalar(value, type, operand);
      return cmp ? order(op, *cmp) : Truth::unknown;
    }
    case Op::in:
    case Op::not_in: {
      std::optional<bool> member = member_of(value, type, operand);
      if (!member) {
        return Truth::unknown;
      }
      return truth(*member == (op == Op::in));
    }
    case Op::contains:
    case Op::starts_with: {
      auto* needle = std::get_if<std::string>(&operand);
      return needle ? text_test(op, value, *needle) : Truth::unknown;
    }
    case Op::present: {
      auto* want = std::get_if<bool>(&operand);
      return want ? truth(*want) : Truth::unknown;
    }
  }
  return Truth::unknown;
}

std::string operand_text(const Operand& operand) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<std::int64_t>& list) const {
      std::string out = "[";
      for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(list[i]);
      }
      return out + "]";
    }
    std::string operator()(const std::vector<std::string>& list) const {
      std::string out = "[";
      for (std::size_t i = 0; i < list.size(); ++i) {
        out += (i ? ", \"" : "\"") + list[i] + "\"";
      }
      return out + "]";
    }
  };
  return std::visit(Visitor{}, operand);
}

}  // namespace gd
