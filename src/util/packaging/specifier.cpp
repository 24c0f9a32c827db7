#include "util/packaging/specifier.hpp"

#include <array>
#include <utility>

#include "util/packaging/text_chars.hpp"

namespace gd {

using namespace packaging_text;
using Pre = PythonVersion::Pre;

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

}  // namespace gd
