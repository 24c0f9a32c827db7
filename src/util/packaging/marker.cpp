#include "util/packaging/marker.hpp"

#include <array>
#include <utility>

#include "util/packaging/name.hpp"
#include "util/packaging/specifier.hpp"
#include "util/packaging/text_chars.hpp"

namespace gd {

using namespace packaging_text;

namespace {

constexpr std::array<std::pair<std::string_view, MarkerVariable>, 18> k_marker_variables{{
    {"os_name", MarkerVariable::os_name},
    {"os.name", MarkerVariable::os_name},
    {"sys_platform", MarkerVariable::sys_platform},
    {"sys.platform", MarkerVariable::sys_platform},
    {"platform_machine", MarkerVariable::platform_machine},
    {"platform.machine", MarkerVariable::platform_machine},
    {"platform_python_implementation", MarkerVariable::platform_python_implementation},
    {"platform.python_implementation", MarkerVariable::platform_python_implementation},
    {"python_implementation", MarkerVariable::platform_python_implementation},
    {"platform_release", MarkerVariable::platform_release},
    {"platform_system", MarkerVariable::platform_system},
    {"platform_version", MarkerVariable::platform_version},
    {"platform.version", MarkerVariable::platform_version},
    {"python_version", MarkerVariable::python_version},
    {"python_full_version", MarkerVariable::python_full_version},
    {"implementation_name", MarkerVariable::implementation_name},
    {"implementation_version", MarkerVariable::implementation_version},
    {"extra", MarkerVariable::extra},
}};

constexpr std::array<std::string_view, 8> k_marker_ops{"===", "==", "~=", "!=", "<=", ">=", "<", ">"};

/// Recursive descent over PEP 508's marker grammar:
///   or_expr  = and_expr ("or" and_expr)*
///   and_expr = item ("and" item)*
///   item     = "(" or_expr ")" | operand op operand
class MarkerParser {
 public:
  explicit MarkerParser(std::string_view text) : s_(text) {}

  std::optional<Marker> parse() {
    auto root = parse_or();
    skip_spaces();
    if (!root || i_ != s_.size()) {
      return std::nullopt;
    }
    marker_.root = *root;
    return std::move(marker_);
  }

 private:
  void skip_spaces() {
    while (i_ < s_.size() && is_space(s_[i_])) {
      ++i_;
    }
  }

  /// A keyword ("and", "or", "in", "not") that is a whole word at the current position.
  bool take_keyword(std::string_view word) {
    if (!s_.substr(i_).starts_with(word)) {
      return false;
    }
    std::size_t end = i_ + word.size();
    if (end < s_.size() && is_word(s_[end])) {
      return false;
    }
    i_ = end;
    return true;
  }

  std::optional<std::size_t> add_group(Marker::Node::Kind kind, std::vector<std::size_t> children) {
    if (children.size() == 1) {
      return children.front();
    }
    Marker::Node node;
    node.kind = kind;
    node.children = std::move(children);
    marker_.nodes.push_back(std::move(node));
    return marker_.nodes.size() - 1;
  }

  std::optional<std::size_t> parse_or() {
    std::vector<std::size_t> children;
    do {
      auto child = parse_and();
      if (!child) {
        return std::nullopt;
      }
      children.push_back(*child);
      skip_spaces();
    } while (take_keyword("or"));
    return add_group(Marker::Node::Kind::any_of, std::move(children));
  }

  std::optional<std::size_t> parse_and() {
    std::vector<std::size_t> children;
    do {
      auto child = parse_item();
      if (!child) {
        return std::nullopt;
      }
      children.push_back(*child);
      skip_spaces();
    } while (take_keyword("and"));
    return add_group(Marker::Node::Kind::all_of, std::move(children));
  }

  std::optional<std::size_t> parse_item() {
    skip_spaces();
    if (i_ < s_.size() && s_[i_] == '(') {
      if (++depth_ > k_max_marker_depth) {
        return std::nullopt;
      }
      ++i_;
      auto inner = parse_or();
      skip_spaces();
      if (!inner || i_ >= s_.size() || s_[i_] != ')') {
        return std::nullopt;
      }
      ++i_;
      --depth_;
      return inner;
    }
    Marker::Node node;
    auto lhs = parse_operand();
    skip_spaces();
    auto op = parse_op();
    skip_spaces();
    auto rhs = op ? parse_operand() : std::nullopt;
    if (!lhs || !op || !rhs) {
      return std::nullopt;
    }
    node.lhs = std::move(*lhs);
    node.op = std::move(*op);
    node.rhs = std::move(*rhs);
    marker_.nodes.push_back(std::move(node));
    return marker_.nodes.size() - 1;
  }

  std::optional<MarkerOperand> parse_operand() {
    MarkerOperand operand;
    if (i_ >= s_.size()) {
      return std::nullopt;
    }
    char quote = s_[i_];
    if (quote == '"' || quote == '\'') {
      std::size_t close = s_.find(quote, i_ + 1);
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      operand.literal = std::string(s_.substr(i_ + 1, close - i_ - 1));
      i_ = close + 1;
      return operand;
    }
    std::size_t start = i_;
    while (i_ < s_.size() && (is_word(s_[i_]) || s_[i_] == '.')) {
      ++i_;
    }
    std::string_view name = s_.substr(start, i_ - start);
    for (const auto& [word, variable] : k_marker_variables) {
      if (name == word) {
        operand.is_variable = true;
        operand.variable = variable;
        return operand;
      }
    }
    return std::nullopt;
  }

  std::optional<std::string> parse_op() {
    for (std::string_view op : k_marker_ops) {
      if (s_.substr(i_).starts_with(op)) {
        i_ += op.size();
        return std::string(op);
      }
    }
    if (take_keyword("in")) {
      return "in";
    }
    if (take_keyword("not")) {
      std::size_t before = i_;
      skip_spaces();
      if (i_ == before || !take_keyword("in")) {
        return std::nullopt;
      }
      return "not in";
    }
    return std::nullopt;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  int depth_ = 0;
  Marker marker_;
};

/// Kleene three-valued logic: unknown and false is false, unknown or true is true.
enum class Truth { no, yes, unknown };

std::string normalized_extra(std::string_view name) { return normalize_name(name); }  // PEP 685: as names

const std::optional<std::string>& env_value(const MarkerEnv& env, MarkerVariable variable) {
  static const std::optional<std::string> k_none;
  switch (variable) {
    case MarkerVariable::os_name: return env.os_name;
    case MarkerVariable::sys_platform: return env.sys_platform;
    case MarkerVariable::platform_machine: return env.platform_machine;
    case MarkerVariable::platform_python_implementation: return env.platform_python_implementation;
    case MarkerVariable::platform_release: return env.platform_release;
    case MarkerVariable::platform_system: return env.platform_system;
    case MarkerVariable::platform_version: return env.platform_version;
    case MarkerVariable::python_version: return env.python_version;
    case MarkerVariable::python_full_version: return env.python_full_version;
    case MarkerVariable::implementation_name: return env.implementation_name;
    case MarkerVariable::implementation_version: return env.implementation_version;
    case MarkerVariable::extra: break;
  }
  return k_none;
}

/// The variables whose comparisons are version comparisons (packaging 26's
/// MARKERS_REQUIRING_VERSION); every other variable compares as a string.
bool is_version_variable(MarkerVariable variable) {
  return variable == MarkerVariable::python_version || variable == MarkerVariable::python_full_version ||
         variable == MarkerVariable::implementation_version || variable == MarkerVariable::platform_release;
}

/// As packaging's _eval_op. For a version variable, if "<op><rhs>" is a valid version
/// specifier the comparison is a version check of lhs (false when lhs is not a version).
/// Otherwise strings compare: "<" and ">" never hold, "<=" and ">=" mean equality (the
/// dependency-specifiers spec gives strings no order), and "~=" / "===" are undefined.
std::optional<bool> compare_values(const std::string& lhs, const std::string& op, const std::string& rhs,
                                   bool version_variable) {
  if (version_variable && op != "in" && op != "not in") {
    if (auto spec = parse_specifier(op + rhs)) {
      return specifier_allows(*spec, lhs).value_or(false);
    }
  }
  if (op == "in") return rhs.find(lhs) != std::string::npos;
  if (op == "not in") return rhs.find(lhs) == std::string::npos;
  if (op == "==" || op == "<=" || op == ">=") return lhs == rhs;
  if (op == "!=") return lhs != rhs;
  if (op == "<" || op == ">") return false;
  return std::nullopt;
}

class MarkerEvaluator {
 public:
  MarkerEvaluator(const Marker& marker, const MarkerEnv& env, std::string_view extra)
      : marker_(marker), env_(env), extra_(extra) {}

  Truth eval(std::size_t index, int depth = 0) const {
    if (index >= marker_.nodes.size() || depth > k_max_marker_depth * 2) {
      return Truth::unknown;  // only a hand-built, malformed Marker gets here
    }
    const Marker::Node& node = marker_.nodes[index];
    if (node.kind == Marker::Node::Kind::compare) {
      return compare(node);
    }
    bool all = node.kind == Marker::Node::Kind::all_of;
    Truth result = all ? Truth::yes : Truth::no;
    for (std::size_t child : node.children) {
      Truth t = eval(child, depth + 1);
      if (t == (all ? Truth::no : Truth::yes)) {
        return t;
      }
      if (t == Truth::unknown) {
        result = Truth::unknown;
      }
    }
    return result;
  }

 private:
  std::optional<std::string> value(const MarkerOperand& operand) const {
    if (!operand.is_variable) {
      return operand.literal;
    }
    if (operand.variable == MarkerVariable::extra) {
      return std::string(extra_);
    }
    std::optional<std::string> found = env_value(env_, operand.variable);
    // Python built from an untagged checkout reports "3.12.0+"; packaging reads it as a local
    // version ("3.12.0+local") so that it still compares.
    if (found && operand.variable == MarkerVariable::python_full_version && found->ends_with('+')) {
      *found += "local";
    }
    return found;
  }

  Truth compare(const Marker::Node& node) const {
    // The variable side decides how to compare; a comparison of two literals has no variable
    // to look up, and packaging refuses it.
    const MarkerOperand* variable = node.lhs.is_variable ? &node.lhs : node.rhs.is_variable ? &node.rhs : nullptr;
    if (variable == nullptr) {
      return Truth::unknown;
    }
    auto lhs = value(node.lhs);
    auto rhs = value(node.rhs);
    if (!lhs || !rhs) {
      return Truth::unknown;
    }
    if (variable->variable == MarkerVariable::extra) {  // extras compare by normalized name (PEP 685)
      lhs = normalized_extra(*lhs);
      rhs = normalized_extra(*rhs);
    }
    auto result = compare_values(*lhs, node.op, *rhs, is_version_variable(variable->variable));
    if (!result) {
      return Truth::unknown;
    }
    return *result ? Truth::yes : Truth::no;
  }

  const Marker& marker_;
  const MarkerEnv& env_;
  std::string_view extra_;
};

}  // namespace

std::optional<Marker> parse_marker(std::string_view text) {
  if (text.size() > k_max_requirement_chars) {
    return std::nullopt;
  }
  return MarkerParser(text).parse();
}

std::optional<bool> marker_applies(const Marker& marker, const MarkerEnv& env) {
  // pip (metadata/importlib: iter_dependencies) evaluates with extra "" when no extra is asked
  // for, and otherwise once for each asked extra, keeping the requirement if any says yes.
  std::vector<std::string_view> extras(env.extras.begin(), env.extras.end());
  if (extras.empty()) {
    extras.push_back("");
  }
  Truth result = Truth::no;
  for (std::string_view extra : extras) {
    Truth t = MarkerEvaluator(marker, env, extra).eval(marker.root);
    if (t == Truth::yes) {
      return true;
    }
    if (t == Truth::unknown) {
      result = Truth::unknown;
    }
  }
  if (result == Truth::unknown) {
    return std::nullopt;
  }
  return false;
}

bool marker_mentions_extra(const Marker& marker) {
  return std::any_of(marker.nodes.begin(), marker.nodes.end(), [](const Marker::Node& node) {
    auto is_extra = [](const MarkerOperand& o) { return o.is_variable && o.variable == MarkerVariable::extra; };
    return node.kind == Marker::Node::Kind::compare && (is_extra(node.lhs) || is_extra(node.rhs));
  });
}

}  // namespace gd
