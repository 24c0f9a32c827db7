#include "probes/container/nvidia_require.hpp"

#include <array>
#include <charconv>
#include <vector>

namespace gd {
namespace {

// Longest first, so ">=" is not read as ">" followed by "=" (dsl.c takes the whole run of
// "<>=!" characters and matches it exactly).
constexpr std::array<std::string_view, 6> k_operators = {"!=", "<=", ">=", "=", "<", ">"};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) {
      return false;
    }
  }
  return true;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(separator, pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    if (end > pos) {
      out.push_back(text.substr(pos, end - pos));  // empty pieces are skipped, as strsep loops do
    }
    pos = end + 1;
  }
  return out;
}

struct Factor {
  std::string_view property;
  std::string_view op;
  std::string_view value;
};

std::optional<Factor> parse_factor(std::string_view text) {
  std::size_t start = text.find_first_of("<>=!");
  if (start == 0 || start == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t end = text.find_first_not_of("<>=!", start);
  if (end == std::string_view::npos) {
    return std::nullopt;  // no value
  }
  std::string_view op = text.substr(start, end - start);
  for (std::string_view known : k_operators) {
    if (op == known) {
      return Factor{text.substr(0, start), op, text.substr(end)};
    }
  }
  return std::nullopt;
}

/// One factor against the properties; `undecided` gets the property when it is unknown.
std::optional<RequireTruth> evaluate_factor(const Factor& factor, const RequireProperties& properties,
                                            std::string& undecided) {
  const std::optional<std::string>* value = nullptr;
  bool is_string = false;
  if (equal_ignoring_case(factor.property, "cuda")) {
    value = &properties.cuda;
  } else if (equal_ignoring_case(factor.property, "driver")) {
    value = &properties.driver;
  } else if (equal_ignoring_case(factor.property, "arch")) {
    value = &properties.arch;
  } else if (equal_ignoring_case(factor.property, "brand")) {
    value = &properties.brand;
    is_string = true;
  } else {
    // factory.go: "Skipping unsupported constraint" (libnvidia-container would refuse it).
    return RequireTruth::yes;
  }
  if (!*value) {
    std::string name(factor.property);
    if (undecided.find(name) == std::string::npos) {
      undecided += (undecided.empty() ? "" : ", ") + name;
    }
    return RequireTruth::unknown;
  }
  if (is_string) {
    // dsl_compare_string: only = and !=, case-insensitive.
    if (factor.op == "=") {
      return equal_ignoring_case(**value, factor.value) ? RequireTruth::yes : RequireTruth::no;
    }
    if (factor.op == "!=") {
      return equal_ignoring_case(**value, factor.value) ? RequireTruth::no : RequireTruth::yes;
    }
    return std::nullopt;
  }
  std::optional<bool> result = compare_require_version(**value, factor.op, factor.value);
  if (!result) {
    return std::nullopt;
  }
  return *result ? RequireTruth::yes : RequireTruth::no;
}

bool only_digits_and_dots(std::string_view text) {
  return text.find_first_not_of("0123456789.") == std::string_view::npos;
}

/// strtoumax at the start of `text`: the number and how many characters it used.
std::optional<std::pair<unsigned long long, std::size_t>> leading_number(std::string_view text) {
  unsigned long long n = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (error != std::errc() || end == text.data()) {
    return std::nullopt;
  }
  return std::pair{n, static_cast<std::size_t>(end - text.data())};
}

std::string_view skip_chars(std::string_view text, std::string_view chars) {
  std::size_t n = text.find_first_not_of(chars);
  return n == std::string_view::npos ? std::string_view() : text.substr(n);
}

}  // namespace

std::optional<bool> compare_require_version(std::string_view v1, std::string_view op, std::string_view v2) {
  bool eq = op == "=", ne = op == "!=", lt = op == "<", le = op == "<=", gt = op == ">", ge = op == ">=";
  if (!(eq || ne || lt || le || gt || ge) || !only_digits_and_dots(v1) || !only_digits_and_dots(v2)) {
    return std::nullopt;
  }
  // dsl_compare_version: the first differing component decides.
  while (!v1.empty() && !v2.empty()) {
    auto n1 = leading_number(v1);
    auto n2 = leading_number(v2);
    if (!n1 || !n2) {
      return std::nullopt;  // a component without digits (".5", "1..2")
    }
    if (n1->first != n2->first) {
      if (eq) return false;
      if (ne) return true;
      if (lt || le) return n1->first < n2->first;
      return n1->first > n2->first;
    }
    v1 = skip_chars(v1.substr(n1->second), ".");
    v2 = skip_chars(v2.substr(n2->second), ".");
  }
  // One side ran out: trailing zeros and dots do not count ("13.0" == "13").
  v1 = skip_chars(v1, ".0");
  v2 = skip_chars(v2, ".0");
  if (ne) return !v1.empty() || !v2.empty();
  if ((eq || le || ge) && v1.empty() && v2.empty()) return true;
  if (eq) return false;
  if (lt || le) return v1.empty() && !v2.empty();
  return !v1.empty() && v2.empty();
}

RequireResult evaluate_requirement(std::string_view requirement, const RequireProperties& properties) {
  RequireResult result;
  std::vector<std::string_view> terms = split(requirement, ' ');
  if (terms.empty()) {
    result.met = RequireTruth::yes;
    return result;
  }
  bool any_unknown = false;
  std::string undecided;
  for (std::string_view term : terms) {
    RequireTruth term_truth = RequireTruth::yes;
    std::string term_undecided;
    for (std::string_view text : split(term, ',')) {
      std::optional<Factor> factor = parse_factor(text);
      std::optional<RequireTruth> truth = factor ? evaluate_factor(*factor, properties, term_undecided) : std::nullopt;
      if (!truth) {
        result.error = std::string(text);
        result.met = RequireTruth::unknown;
        return result;
      }
      if (*truth == RequireTruth::no) {
        term_truth = RequireTruth::no;  // dsl_evaluate stops at the first false factor
        break;
      }
      if (*truth == RequireTruth::unknown && term_truth == RequireTruth::yes) {
        term_truth = RequireTruth::unknown;
      }
    }
    if (term_truth == RequireTruth::yes) {
      result.met = RequireTruth::yes;
      return result;
    }
    if (term_truth == RequireTruth::unknown) {
      any_unknown = true;
      for (std::string_view name : split(term_undecided, ',')) {
        std::string_view trimmed = name.substr(name.find_first_not_of(' '));
        if (undecided.find(trimmed) == std::string::npos) {
          undecided += (undecided.empty() ? "" : ", ") + std::string(trimmed);
        }
      }
    }
  }
  if (any_unknown) {
    result.met = RequireTruth::unknown;
    result.undecided = undecided;
  } else {
    result.met = RequireTruth::no;
    result.failing = std::string(terms.front());
  }
  return result;
}

}  // namespace gd
