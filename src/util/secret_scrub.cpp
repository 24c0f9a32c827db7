#include "util/secret_scrub.hpp"

#include <array>
#include <cctype>
#include <tuple>
#include <utility>

namespace gd {
namespace {

bool token_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Prefixes of tokens whose issuers document them; the part after the prefix must be long
// enough (16+ characters) not to catch words such as "sk-learn".
constexpr std::array<std::string_view, 13> k_token_prefixes = {
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "hf_", "glpat-", "npm_", "sk-", "xoxb-", "xoxp-", "xoxa-",
};
constexpr std::size_t k_min_after_prefix = 16;
constexpr std::size_t k_min_generic = 40;

/// AWS access key ids: AKIA or ASIA and 16 upper-case letters or digits.
bool aws_key_id(std::string_view piece) {
  if (piece.size() != 20 || !(piece.starts_with("AKIA") || piece.starts_with("ASIA"))) return false;
  for (char c : piece) {
    if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

/// Whether the token-character run `run` looks like a secret; `generic` adds the 40+ rule.
bool secret_run(std::string_view run, bool generic) {
  // A token at the start of the run or after one of its dashes: "GPU-ghp_..." or
  // "/opt/env-hf_..." joins it to a word, and the run is the whole joined stretch.
  for (std::size_t at = 0;;) {
    std::string_view rest = run.substr(at);
    for (std::string_view prefix : k_token_prefixes) {
      if (rest.starts_with(prefix) && rest.size() >= prefix.size() + k_min_after_prefix) return true;
    }
    if (aws_key_id(rest.substr(0, rest.find('-')))) return true;
    std::size_t dash = run.find('-', at);
    if (dash == std::string_view::npos) break;
    at = dash + 1;
  }
  if (!generic) return false;
  // Generic keys: a '-'-free stretch (UUIDs such as GPU-48a35ae5-... are short pieces between
  // dashes, and must stay: CUDA_VISIBLE_DEVICES names GPUs by them).
  std::size_t start = 0;
  while (start < run.size()) {
    std::size_t dash = run.find('-', start);
    std::string_view piece = run.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start);
    if (piece.size() >= k_min_generic) {
      bool letters = false;
      bool digits = false;
      for (char c : piece) {
        letters = letters || std::isalpha(static_cast<unsigned char>(c));
        digits = digits || std::isdigit(static_cast<unsigned char>(c));
      }
      if (letters && digits) return true;
    }
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  return false;
}

/// Where the password of the first scheme://user:password@host at or after `pos` starts (its
/// colon) and ends (its '@'), or npos: the one test both the check and the scrub use.
std::pair<std::size_t, std::size_t> next_url_password(std::string_view value, std::size_t pos) {
  while (pos < value.size()) {
    std::size_t scheme = value.find("://", pos);
    if (scheme == std::string_view::npos) break;
    std::size_t start = scheme + 3;
    std::size_t at = value.find('@', start);
    std::size_t colon = value.find(':', start);
    // user:password@ must come before the first '/' of the path, and holds no blank: in a
    // sentence ("see https://host for details: mail x@y") the '@' belongs to another word.
    std::size_t slash = value.find('/', start);
    std::size_t blank = value.find_first_of(" \t\r\n", start);
    if (at != std::string_view::npos && colon != std::string_view::npos && colon < at &&
        (slash == std::string_view::npos || at < slash) && (blank == std::string_view::npos || at < blank)) {
      return {colon, at};
    }
    pos = start;
  }
  return {std::string_view::npos, std::string_view::npos};
}

/// Whether `value` holds anything scrub() would replace, without building a copy: nearly every
/// string of a report holds nothing, and a report's capture has tens of thousands of them.
bool holds(std::string_view value, bool generic) {
  if (next_url_password(value, 0).first != std::string_view::npos) return true;
  std::size_t i = 0;
  while (i < value.size()) {
    if (!token_char(value[i])) {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < value.size() && token_char(value[i])) ++i;
    if (secret_run(value.substr(start, i - start), generic)) return true;
  }
  return false;
}

/// The password of scheme://user:password@host, replaced.
std::string scrub_url_passwords(std::string_view value) {
  std::string out;
  std::size_t pos = 0;
  for (auto [colon, at] = next_url_password(value, 0); colon != std::string_view::npos;
       std::tie(colon, at) = next_url_password(value, pos)) {
    out.append(value.substr(pos, colon + 1 - pos));
    out.append(k_redacted_secret);
    pos = at;
  }
  out.append(value.substr(pos));
  return out;
}

std::string scrub(std::string_view input, bool generic) {
  if (!holds(input, generic)) return std::string(input);
  std::string value = scrub_url_passwords(input);
  std::string out;
  std::size_t i = 0;
  while (i < value.size()) {
    if (!token_char(value[i])) {
      out += value[i++];
      continue;
    }
    std::size_t start = i;
    while (i < value.size() && token_char(value[i])) ++i;
    std::string_view run(value.data() + start, i - start);
    if (secret_run(run, generic)) {
      out.append(k_redacted_secret);
    } else {
      out.append(run);
    }
  }
  return out;
}

}  // namespace

std::string scrub_secrets(std::string_view value) { return scrub(value, /*generic=*/true); }

std::string scrub_known_secrets(std::string_view value) { return scrub(value, /*generic=*/false); }

bool holds_known_secret(std::string_view value) { return holds(value, /*generic=*/false); }

}  // namespace gd
