#include "util/packaging/version.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "util/packaging/text_chars.hpp"

namespace gd {

using namespace packaging_text;

namespace {

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

}  // namespace gd
