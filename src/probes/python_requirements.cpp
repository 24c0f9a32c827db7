#include "probes/python_requirements.hpp"

#include "probes/python_metadata.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace gd {
namespace {

// Real values are short ("2.11.0.dev20260109+cu130", a Requires-Dist line with a long URL is a
// few hundred bytes); anything far longer is not metadata and is refused rather than scanned.
constexpr std::size_t k_max_version_chars = 256;
constexpr std::size_t k_max_requirement_chars = 8192;
// Real markers nest parentheses two deep; the limit keeps recursion bounded on garbage.
constexpr int k_max_marker_depth = 64;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool is_word(char c) { return is_alnum(c) || c == '_'; }
bool is_separator(char c) { return c == '-' || c == '_' || c == '.'; }
char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && is_space(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

std::string lowered(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

// ---------------------------------------------------------------------------------------------
// PEP 440 versions

enum class NumberRead { none, ok, overflow };

NumberRead read_number(std::string_view s, std::size_t& i, std::uint64_t& out) {
  std::size_t start = i;
  std::uint64_t value = 0;
  while (i < s.size() && is_digit(s[i])) {
    auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      return NumberRead::overflow;
    }
    value = value * 10 + digit;
    ++i;
  }
  if (i == start) {
    return NumberRead::none;
  }
  out = value;
  return NumberRead::ok;
}

/// An optional number after a pre/post/dev word ("rc" → 0, "rc1" → 1). False on overflow.
bool read_optional_number(std::string_view s, std::size_t& i, std::uint64_t& out) {
  out = 0;
  return read_number(s, i, out) != NumberRead::overflow;
}

void skip_one_separator(std::string_view s, std::size_t& i) {
  if (i < s.size() && is_separator(s[i])) {
    ++i;
  }
}

/// Matches the first of `words` at s[i] (callers list a longer word before its prefix).
template <typename Words>
const typename Words::value_type* match_word(std::string_view s, std::size_t i, const Words& words) {
  for (const auto& entry : words) {
    if (s.substr(i).starts_with(entry.first)) {
      return &entry;
    }
  }
  return nullptr;
}

using Pre = PythonVersion::Pre;
constexpr std::array<std::pair<std::string_view, Pre>, 8> k_pre_words{{
    {"alpha", Pre::alpha}, {"beta", Pre::beta}, {"preview", Pre::rc}, {"pre", Pre::rc},
    {"rc", Pre::rc},       {"a", Pre::alpha},   {"b", Pre::beta},      {"c", Pre::rc},
}};
constexpr std::array<std::pair<std::string_view, int>, 3> k_post_words{{{"post", 0}, {"rev", 0}, {"r", 0}}};
constexpr std::array<std::pair<std::string_view, int>, 1> k_dev_words{{{"dev", 0}}};

/// "[-_.]?word[-_.]?number?" at i; advances i and sets the number when the word is there.
template <typename Words>
std::optional<const typename Words::value_type*> read_suffix(std::string_view s, std::size_t& i,
                                                             const Words& words, std::uint64_t& number,
                                                             bool& overflow) {
  std::size_t j = i;
  skip_one_separator(s, j);
  const auto* word = match_word(s, j, words);
  if (word == nullptr) {
    return std::nullopt;
  }
  j += word->first.size();
  skip_one_separator(s, j);
  if (!read_optional_number(s, j, number)) {
    overflow = true;
    return std::nullopt;
  }
  i = j;
  return word;
}

/// Local label parts are compared numerically when all digits (numbers sort after words).
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

std::strong_ordering compare_local_part(std::string_view a, std::string_view b) {
  bool a_number = all_digits(a);
  bool b_number = all_digits(b);
  if (a_number != b_number) {
    return a_number ? std::strong_ordering::greater : std::strong_ordering::less;
  }
  if (a_number && a.size() != b.size()) {  // stored without leading zeros
    return a.size() <=> b.size();
  }
  return a.compare(b) <=> 0;
}

/// Packaging's ordering key for the pre-release part: a dev release of a final version sorts
/// before its alphas; no pre-release sorts after all of them.
int pre_rank(const PythonVersion& v) {
  if (v.pre == Pre::none) {
    return (!v.post && v.dev) ? -1 : 3;
  }
  return static_cast<int>(v.pre) - 1;  // alpha 0, beta 1, rc 2
}

}  // namespace

std::optional<PythonVersion> parse_python_version(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.size() > k_max_version_chars) {
    return std::nullopt;
  }
  std::string lower = lowered(text);
  std::string_view s = lower;
  std::size_t i = 0;
  PythonVersion v;

  if (s[i] == 'v') {
    ++i;
  }
  std::uint64_t number = 0;
  if (read_number(s, i, number) != NumberRead::ok) {
    return std::nullopt;
  }
  if (i < s.size() && s[i] == '!') {
    v.epoch = number;
    ++i;
    if (read_number(s, i, number) != NumberRead::ok) {
      return std::nullopt;
    }
  }
  v.release.push_back(number);
  while (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
    ++i;
    if (read_number(s, i, number) != NumberRead::ok) {
      return std::nullopt;
    }
    v.release.push_back(number);
  }

  bool overflow = false;
  if (auto pre = read_suffix(s, i, k_pre_words, number, overflow)) {
    v.pre = (*pre)->second;
    v.pre_number = number;
  }
  // An implicit post release is "-N" ("1.0-1" is "1.0.post1").
  if (!overflow && i + 1 < s.size() && s[i] == '-' && is_digit(s[i + 1])) {
    ++i;
    if (read_number(s, i, number) != NumberRead::ok) {
      return std::nullopt;
    }
    v.post = number;
  } else if (!overflow && read_suffix(s, i, k_post_words, number, overflow)) {
    v.post = number;
  }
  if (!overflow && read_suffix(s, i, k_dev_words, number, overflow)) {
    v.dev = number;
  }
  if (overflow) {
    return std::nullopt;
  }

  if (i < s.size() && s[i] == '+') {
    ++i;
    while (true) {
      std::size_t start = i;
      while (i < s.size() && is_lower_alnum(s[i])) {
        ++i;
      }
      if (i == start) {
        return std::nullopt;
      }
      std::string part(s.substr(start, i - start));
      if (all_digits(part)) {  // "01" is 1: packaging stores numeric parts as integers
        part.erase(0, std::min(part.find_first_not_of('0'), part.size() - 1));
      }
      v.local.push_back(std::move(part));
      if (i < s.size() && is_separator(s[i])) {
        ++i;
        continue;
      }
      break;
    }
  }
  if (i != s.size()) {
    return std::nullopt;
  }
  return v;
}

PythonVersion PythonVersion::public_version() const {
  PythonVersion v = *this;
  v.local.clear();
  return v;
}

PythonVersion PythonVersion::base_version() const {
  PythonVersion v;
  v.epoch = epoch;
  v.release = release;
  return v;
}

std::string PythonVersion::text() const {
  std::string out;
  if (epoch != 0) {
    out += std::to_string(epoch) + "!";
  }
  for (std::size_t i = 0; i < release.size(); ++i) {
    out += (i == 0 ? "" : ".") + std::to_string(release[i]);
  }
  if (pre != Pre::none) {
    out += (pre == Pre::alpha ? "a" : pre == Pre::beta ? "b" : "rc") + std::to_string(pre_number);
  }
  if (post) {
    out += ".post" + std::to_string(*post);
  }
  if (dev) {
    out += ".dev" + std::to_string(*dev);
  }
  for (std::size_t i = 0; i < local.size(); ++i) {
    out += (i == 0 ? "+" : ".") + local[i];
  }
  return out;
}

std::strong_ordering operator<=>(const PythonVersion& a, const PythonVersion& b) {
  if (auto c = a.epoch <=> b.epoch; c != 0) {
    return c;
  }
  std::size_t n = std::max(a.release.size(), b.release.size());
  for (std::size_t i = 0; i < n; ++i) {  // "2.0" == "2.0.0": missing numbers are zeros
    std::uint64_t x = i < a.release.size() ? a.release[i] : 0;
    std::uint64_t y = i < b.release.size() ? b.release[i] : 0;
    if (auto c = x <=> y; c != 0) {
      return c;
    }
  }
  if (auto c = pre_rank(a) <=> pre_rank(b); c != 0) {
    return c;
  }
  if (a.pre != Pre::none) {
    if (auto c = a.pre_number <=> b.pre_number; c != 0) {
      return c;
    }
  }
  if (auto c = a.post.has_value() <=> b.post.has_value(); c != 0) {  // no post sorts first
    return c;
  }
  if (a.post) {
    if (auto c = *a.post <=> *b.post; c != 0) {
      return c;
    }
  }
  if (auto c = b.dev.has_value() <=> a.dev.has_value(); c != 0) {  // no dev sorts last
    return c;
  }
  if (a.dev) {
    if (auto c = *a.dev <=> *b.dev; c != 0) {
      return c;
    }
  }
  std::size_t m = std::min(a.local.size(), b.local.size());
  for (std::size_t i = 0; i < m; ++i) {
    if (auto c = compare_local_part(a.local[i], b.local[i]); c != 0) {
      return c;
    }
  }
  return a.local.size() <=> b.local.size();  // no label, or a shorter one, sorts first
}

// ---------------------------------------------------------------------------------------------
// Specifiers

namespace {

constexpr std::array<std::pair<std::string_view, SpecifierOp>, 8> k_specifier_ops{{
    {"===", SpecifierOp::arbitrary},   {"~=", SpecifierOp::compatible}, {"==", SpecifierOp::equal},
    {"!=", SpecifierOp::not_equal},    {"<=", SpecifierOp::less_equal}, {">=", SpecifierOp::greater_equal},
    {"<", SpecifierOp::less},          {">", SpecifierOp::greater},
}};

std::string_view op_text(SpecifierOp op) {
  for (const auto& [text, value] : k_specifier_ops) {
    if (value == op) {
      return text;
    }
  }
  return "";
}

bool is_wildcard(const Specifier& spec) {
  return (spec.op == SpecifierOp::equal || spec.op == SpecifierOp::not_equal) && spec.version.ends_with(".*");
}

/// "==2.6.*": the version's epoch matches and its release starts with 2.6 (missing numbers are
/// zeros, so 2 matches "==2.0.*"); pre/post/dev/local parts play no part.
bool prefix_matches(const PythonVersion& v, std::uint64_t epoch, const std::vector<std::uint64_t>& prefix) {
  if (v.epoch != epoch) {
    return false;
  }
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    std::uint64_t have = i < v.release.size() ? v.release[i] : 0;
    if (have != prefix[i]) {
      return false;
    }
  }
  return true;
}

std::optional<bool> allows(const Specifier& spec, const PythonVersion& v) {
  if (is_wildcard(spec)) {
    auto prefix = parse_python_version(std::string_view(spec.version).substr(0, spec.version.size() - 2));
    if (!prefix) {
      return std::nullopt;
    }
    bool match = prefix_matches(v, prefix->epoch, prefix->release);
    return spec.op == SpecifierOp::equal ? match : !match;
  }
  auto target = parse_python_version(spec.version);
  if (!target) {
    return std::nullopt;
  }
  switch (spec.op) {
    case SpecifierOp::equal:
    case SpecifierOp::not_equal: {
      // A local label counts only when the specifier names one ("==2.6.0" accepts 2.6.0+cu124).
      bool equal = target->local.empty() ? v.public_version() == *target : v == *target;
      return spec.op == SpecifierOp::equal ? equal : !equal;
    }
    case SpecifierOp::compatible: {
      // "~=2.6.1" is ">=2.6.1, ==2.6.*".
      std::vector<std::uint64_t> prefix(target->release.begin(), target->release.end() - 1);
      return v.public_version() >= *target && prefix_matches(v, target->epoch, prefix);
    }
    case SpecifierOp::less_equal:
      return v.public_version() <= *target;
    case SpecifierOp::greater_equal:
      return v.public_version() >= *target;
    case SpecifierOp::less: {
      // "<2.6.0" stops below 2.6.0.dev0: no pre-release of the bound gets in (unless the bound
      // is itself a pre-release).
      PythonVersion bound = *target;
      if (!target->is_prerelease()) {
        bound.dev = 0;
      }
      return v < bound;
    }
    case SpecifierOp::greater: {
      // ">V.devN" starts at V.dev(N+1), ">V.postN" at V.post(N+1).dev0; ">V" otherwise excludes
      // V's own family (V+local, V.postN) though it sorts higher. As packaging 26's ranges.
      if (target->dev) {
        if (*target->dev == std::numeric_limits<std::uint64_t>::max()) {
          return std::nullopt;
        }
        PythonVersion lower = *target;
        lower.dev = *target->dev + 1;
        return v >= lower;
      }
      if (target->post) {
        if (*target->post == std::numeric_limits<std::uint64_t>::max()) {
          return std::nullopt;
        }
        PythonVersion lower = *target;
        lower.post = *target->post + 1;
        lower.dev = 0;
        return v >= lower;
      }
      if (!(v > *target)) {
        return false;
      }
      bool same_family = v.epoch == target->epoch && v.base_version() == target->base_version() &&
                         v.pre == target->pre && (v.pre == Pre::none || v.pre_number == target->pre_number);
      return !same_family;
    }
    case SpecifierOp::arbitrary:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::string Specifier::text() const { return std::string(op_text(op)) + version; }

std::optional<Specifier> parse_specifier(std::string_view text) {
  text = trim(text);
  if (text.size() > k_max_version_chars) {
    return std::nullopt;
  }
  Specifier spec;
  bool found = false;
  for (const auto& [word, op] : k_specifier_ops) {
    if (text.starts_with(word)) {
      spec.op = op;
      text.remove_prefix(word.size());
      found = true;
      break;
    }
  }
  if (!found) {
    return std::nullopt;
  }
  std::string_view version = trim(text);
  if (std::any_of(version.begin(), version.end(), [](char c) { return is_space(c) || c == ';' || c == ')'; })) {
    return std::nullopt;
  }
  spec.version = std::string(version);
  if (spec.op == SpecifierOp::arbitrary) {
    return spec;  // "===" takes any text, even none
  }
  if (version.empty()) {
    return std::nullopt;
  }
  bool wildcard = version.ends_with(".*");
  if (wildcard) {
    if (spec.op != SpecifierOp::equal && spec.op != SpecifierOp::not_equal) {
      return std::nullopt;
    }
    version.remove_suffix(2);
  }
  auto parsed = parse_python_version(version);
  if (!parsed) {
    return std::nullopt;
  }
  if (wildcard && (parsed->pre != Pre::none || parsed->post || parsed->dev || !parsed->local.empty())) {
    return std::nullopt;  // "==2.6.*" may name a release prefix only
  }
  bool may_have_local = spec.op == SpecifierOp::equal || spec.op == SpecifierOp::not_equal;
  if (!parsed->local.empty() && !may_have_local) {
    return std::nullopt;
  }
  if (spec.op == SpecifierOp::compatible && parsed->release.size() < 2) {
    return std::nullopt;  // "~=2" would mean nothing: there is no prefix to keep
  }
  return spec;
}

std::optional<std::vector<Specifier>> parse_specifiers(std::string_view text) {
  if (text.size() > k_max_requirement_chars) {
    return std::nullopt;
  }
  std::vector<Specifier> out;
  while (true) {
    std::size_t comma = text.find(',');
    std::string_view part = trim(text.substr(0, comma));
    if (!part.empty()) {  // like packaging's SpecifierSet, empty clauses are skipped
      auto spec = parse_specifier(part);
      if (!spec) {
        return std::nullopt;
      }
      out.push_back(std::move(*spec));
    }
    if (comma == std::string_view::npos) {
      break;
    }
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<bool> specifier_allows(const Specifier& specifier, std::string_view version) {
  if (specifier.op == SpecifierOp::arbitrary) {
    return lowered(version) == lowered(specifier.version);  // the text as written, not normalized
  }
  auto parsed = parse_python_version(version);
  if (!parsed) {
    return std::nullopt;
  }
  return allows(specifier, *parsed);
}

std::optional<bool> specifiers_allow(const std::vector<Specifier>& specifiers, std::string_view version) {
  if (!parse_python_version(version)) {
    bool only_arbitrary = !specifiers.empty() && std::all_of(specifiers.begin(), specifiers.end(), [](const Specifier& s) {
      return s.op == SpecifierOp::arbitrary;
    });
    if (!only_arbitrary) {
      return std::nullopt;
    }
  }
  for (const auto& spec : specifiers) {
    auto result = specifier_allows(spec, version);
    if (!result) {
      return std::nullopt;
    }
    if (!*result) {
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Markers

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

// ---------------------------------------------------------------------------------------------
// Requirements

namespace {

/// A distribution or extra name: letters and digits, with "-", "_", "." inside (PEP 508).
std::optional<std::string> read_name(std::string_view s, std::size_t& i) {
  std::size_t start = i;
  while (i < s.size() && (is_alnum(s[i]) || is_separator(s[i]))) {
    ++i;
  }
  std::string_view name = s.substr(start, i - start);
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) {
    return std::nullopt;
  }
  return std::string(name);
}

void skip_spaces(std::string_view s, std::size_t& i) {
  while (i < s.size() && is_space(s[i])) {
    ++i;
  }
}

/// The specifier list of a requirement. Stricter than parse_specifiers, as packaging's grammar
/// is: no empty clause, except one trailing comma.
std::optional<std::vector<Specifier>> parse_requirement_specifiers(std::string_view text) {
  text = trim(text);
  if (text.ends_with(',') && text.size() > 1) {
    text.remove_suffix(1);
  }
  std::vector<Specifier> out;
  if (trim(text).empty()) {
    return out;
  }
  while (true) {
    std::size_t comma = text.find(',');
    auto spec = parse_specifier(text.substr(0, comma));
    if (!spec) {
      return std::nullopt;
    }
    out.push_back(std::move(*spec));
    if (comma == std::string_view::npos) {
      return out;
    }
    text.remove_prefix(comma + 1);
  }
}

}  // namespace

std::optional<Requirement> parse_requirement(std::string_view text) {
  text = trim(text);
  if (text.empty() || text.size() > k_max_requirement_chars) {
    return std::nullopt;
  }
  Requirement req;
  std::size_t i = 0;
  auto name = read_name(text, i);
  if (!name) {
    return std::nullopt;
  }
  req.name = std::move(*name);
  skip_spaces(text, i);

  if (i < text.size() && text[i] == '[') {
    ++i;
    skip_spaces(text, i);
    if (i < text.size() && text[i] == ']') {
      ++i;
    } else {
      while (true) {
        skip_spaces(text, i);
        auto extra = read_name(text, i);
        skip_spaces(text, i);
        if (!extra || i >= text.size()) {
          return std::nullopt;
        }
        req.extras.push_back(std::move(*extra));
        if (text[i] == ',') {
          ++i;
          continue;
        }
        if (text[i] != ']') {
          return std::nullopt;
        }
        ++i;
        break;
      }
    }
    skip_spaces(text, i);
  }

  std::string_view rest = text.substr(i);
  std::string_view marker_text;
  bool has_marker = false;
  if (rest.starts_with('@')) {
    // A URL runs to the next space; a marker after it needs a space before the ";".
    std::size_t j = 1;
    skip_spaces(rest, j);
    std::size_t start = j;
    while (j < rest.size() && rest[j] != ' ' && rest[j] != '\t') {
      ++j;
    }
    req.url = std::string(rest.substr(start, j - start));
    if (req.url.empty()) {
      return std::nullopt;
    }
    skip_spaces(rest, j);
    if (j < rest.size()) {
      if (rest[j] != ';') {
        return std::nullopt;
      }
      has_marker = true;
      marker_text = rest.substr(j + 1);
    }
  } else {
    std::string_view spec_text;
    std::size_t after = 0;
    if (rest.starts_with('(')) {
      std::size_t close = rest.find(')');
      if (close == std::string_view::npos) {
        return std::nullopt;
      }
      spec_text = rest.substr(1, close - 1);
      after = close + 1;
      skip_spaces(rest, after);
    } else {
      after = std::min(rest.find(';'), rest.size());
      spec_text = rest.substr(0, after);
    }
    if (trim(spec_text).starts_with(',')) {
      return std::nullopt;
    }
    auto specs = parse_requirement_specifiers(spec_text);
    if (!specs) {
      return std::nullopt;
    }
    req.specifiers = std::move(*specs);
    if (after < rest.size()) {
      if (rest[after] != ';') {
        return std::nullopt;
      }
      has_marker = true;
      marker_text = rest.substr(after + 1);
    }
  }
  if (has_marker) {
    auto marker = parse_marker(marker_text);
    if (!marker) {
      return std::nullopt;
    }
    req.marker = std::move(*marker);
  }
  return req;
}

}  // namespace gd
