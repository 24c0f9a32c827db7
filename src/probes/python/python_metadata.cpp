#include "probes/python/python_metadata.hpp"

#include "util/text_split.hpp"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

namespace gd {
namespace {

// torch's METADATA header is about 3 KB (its description, after the blank line, about 27 KB);
// a header block past 1 MiB is not metadata, and reading stops there.
constexpr std::size_t k_max_header_bytes = 1 << 20;
constexpr std::size_t k_max_version_py_bytes = 64 * 1024;  // the generated file is ~330 bytes
constexpr std::size_t k_max_direct_url_bytes = 64 * 1024;
constexpr std::size_t k_max_wheel_name_chars = 4096;

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

/// RFC 822 field names are printable ASCII other than ":" (no spaces).
bool is_field_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127 && c != ':'; });
}

void store_field(CoreMetadata& meta, std::string_view name, std::string value) {
  value = std::string(trim_whitespace(value));
  auto set_once = [&](std::string& field) {
    if (field.empty()) {  // like email.message: the first occurrence is the value
      field = std::move(value);
    }
  };
  if (equals_ignoring_case(name, "Name")) {
    set_once(meta.name);
  } else if (equals_ignoring_case(name, "Version")) {
    set_once(meta.version);
  } else if (equals_ignoring_case(name, "Metadata-Version")) {
    set_once(meta.metadata_version);
  } else if (equals_ignoring_case(name, "Requires-Python")) {
    set_once(meta.requires_python);
  } else if (equals_ignoring_case(name, "Requires-Dist")) {
    meta.requires_dist.push_back(std::move(value));
  } else if (equals_ignoring_case(name, "Provides-Extra")) {
    meta.provides_extra.push_back(std::move(value));
  }
}

// ---------------------------------------------------------------------------------------------
// torch/version.py

bool is_identifier_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_identifier_char(char c) { return is_identifier_start(c) || is_digit(c); }

/// The right-hand side of a generated assignment: a quoted string, None, True or False,
/// optionally followed by a comment.
struct PyLiteral {
  enum class Kind { string, none, boolean } kind = Kind::none;
  std::string text;
  bool flag = false;
};

std::optional<PyLiteral> parse_literal(std::string_view s) {
  s = trim_whitespace(s);
  PyLiteral literal;
  std::string_view rest;
  if (!s.empty() && (s.front() == '\'' || s.front() == '"')) {
    std::size_t close = s.find(s.front(), 1);
    if (close == std::string_view::npos) {
      return std::nullopt;
    }
    literal.kind = PyLiteral::Kind::string;
    literal.text = std::string(s.substr(1, close - 1));
    if (literal.text.find('\\') != std::string::npos) {
      return std::nullopt;  // repr() of a version never has escapes; do not guess at them
    }
    rest = s.substr(close + 1);
  } else {
    std::size_t end = 0;
    while (end < s.size() && is_identifier_char(s[end])) {
      ++end;
    }
    std::string_view word = s.substr(0, end);
    if (word == "None") {
      literal.kind = PyLiteral::Kind::none;
    } else if (word == "True" || word == "False") {
      literal.kind = PyLiteral::Kind::boolean;
      literal.flag = word == "True";
    } else {
      return std::nullopt;
    }
    rest = s.substr(end);
  }
  rest = trim_whitespace(rest);
  if (!rest.empty() && rest.front() != '#') {
    return std::nullopt;  // an expression, not a literal
  }
  return literal;
}

std::optional<std::string> string_or_none(const PyLiteral& literal) {
  if (literal.kind == PyLiteral::Kind::string) {
    return literal.text;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Wheel names

/// "%2B" → "+" and the other %XX escapes a URL may carry.
std::string percent_decoded(std::string_view s) {
  auto hex = [](char c) -> int {
    if (is_digit(c)) return c - '0';
    c = ascii_lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split_dashes(std::string_view s) {
  std::vector<std::string_view> parts;
  while (true) {
    std::size_t dash = s.find('-');
    parts.push_back(s.substr(0, dash));
    if (dash == std::string_view::npos) {
      return parts;
    }
    s.remove_prefix(dash + 1);
  }
}

}  // namespace

std::optional<CoreMetadata> parse_core_metadata(std::string_view text) {
  CoreMetadata meta;
  std::string field_name;
  std::string field_value;
  bool in_field = false;
  // Only the first MiB is looked at; a line cut by that limit is dropped, not half-read.
  bool cut = text.size() > k_max_header_bytes;
  std::string_view window = text.substr(0, k_max_header_bytes);
  std::size_t pos = 0;
  while (pos < window.size()) {
    std::size_t end = window.find('\n', pos);
    if (end == std::string_view::npos) {
      if (cut) {
        break;
      }
      end = window.size();
    }
    std::string_view line = window.substr(pos, end - pos);
    pos = end + 1;
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    if (line.empty()) {
      break;  // the blank line before the description
    }
    if (line.front() == ' ' || line.front() == '\t') {
      if (in_field) {  // a folded line: RFC 822 unfolding keeps its leading white space
        field_value += line;
      }
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_field_name(line.substr(0, colon))) {
      break;  // not a header: as Python's email parser does, the body starts here
    }
    if (in_field) {
      store_field(meta, field_name, std::move(field_value));
    }
    field_name = std::string(line.substr(0, colon));
    field_value = std::string(line.substr(colon + 1));
    in_field = true;
  }
  if (in_field) {
    store_field(meta, field_name, std::move(field_value));
  }
  if (meta.name.empty() || meta.version.empty()) {
    return std::nullopt;
  }
  return meta;
}

std::optional<TorchVersionFile> parse_torch_version_py(std::string_view text) {
  if (text.size() > k_max_version_py_bytes) {
    return std::nullopt;
  }
  TorchVersionFile file;
  bool has_version = false;
  for (std::string_view line : split_lines(text)) {
    if (line.empty() || !is_identifier_start(line.front())) {
      continue;  // blank, comment, or indented (inside a block): not a module-level assignment
    }
    std::size_t i = 0;
    while (i < line.size() && is_identifier_char(line[i])) {
      ++i;
    }
    std::string_view name = line.substr(0, i);
    std::size_t eq = line.find('=', i);
    if (eq == std::string_view::npos || (eq + 1 < line.size() && line[eq + 1] == '=')) {
      continue;
    }
    // Between the name and "=": nothing, or a type annotation ": Optional[str]".
    std::string_view between = trim_whitespace(line.substr(i, eq - i));
    if (!between.empty() && between.front() != ':') {
      continue;
    }
    auto literal = parse_literal(line.substr(eq + 1));
    if (!literal) {
      continue;
    }
    if (name == "__version__" && literal->kind == PyLiteral::Kind::string) {
      file.version = literal->text;
      has_version = true;
    } else if (name == "git_version" && literal->kind == PyLiteral::Kind::string) {
      file.git_version = literal->text;
    } else if (name == "debug" && literal->kind == PyLiteral::Kind::boolean) {
      file.debug = literal->flag;
    } else if (name == "cuda") {
      file.declares_cuda = true;
      file.cuda = string_or_none(*literal);
    } else if (name == "hip") {
      file.hip = string_or_none(*literal);
    } else if (name == "rocm") {
      file.rocm = string_or_none(*literal);
    } else if (name == "xpu") {
      file.xpu = string_or_none(*literal);
    }
  }
  if (!has_version) {
    return std::nullopt;
  }
  return file;
}

std::optional<DirectUrl> parse_direct_url(std::string_view json_text) {
  if (json_text.size() > k_max_direct_url_bytes) {
    return std::nullopt;
  }
  auto doc = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("url") || !doc["url"].is_string()) {
    return std::nullopt;
  }
  DirectUrl out;
  out.url = doc["url"].get<std::string>();
  auto string_at = [](const nlohmann::json& object, const char* key) -> std::string {
    auto it = object.find(key);
    return (it != object.end() && it->is_string()) ? it->get<std::string>() : std::string();
  };
  out.subdirectory = string_at(doc, "subdirectory");
  if (auto it = doc.find("vcs_info"); it != doc.end() && it->is_object()) {
    out.kind = DirectUrl::Kind::vcs;
    out.vcs = string_at(*it, "vcs");
    out.commit_id = string_at(*it, "commit_id");
    out.requested_revision = string_at(*it, "requested_revision");
  } else if (auto dir = doc.find("dir_info"); dir != doc.end() && dir->is_object()) {
    out.kind = DirectUrl::Kind::directory;
    auto editable = dir->find("editable");
    out.editable = editable != dir->end() && editable->is_boolean() && editable->get<bool>();
  } else if (auto archive = doc.find("archive_info"); archive != doc.end() && archive->is_object()) {
    out.kind = DirectUrl::Kind::archive;
  } else {
    return std::nullopt;
  }
  return out;
}

std::optional<WheelFilename> parse_wheel_filename(std::string_view name_or_url) {
  if (name_or_url.size() > k_max_wheel_name_chars) {
    return std::nullopt;
  }
  std::string_view s = trim_whitespace(name_or_url);
  s = s.substr(0, std::min(s.find('#'), s.size()));
  s = s.substr(0, std::min(s.find('?'), s.size()));
  if (std::size_t slash = s.find_last_of('/'); slash != std::string_view::npos) {
    s.remove_prefix(slash + 1);
  }
  std::string file = percent_decoded(s);
  std::string_view name = file;
  if (!name.ends_with(".whl")) {
    return std::nullopt;
  }
  name.remove_suffix(4);
  auto parts = split_dashes(name);
  if (parts.size() != 5 && parts.size() != 6) {
    return std::nullopt;
  }
  if (std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return p.empty(); })) {
    return std::nullopt;
  }
  WheelFilename out;
  out.distribution = std::string(parts[0]);
  out.version = std::string(parts[1]);
  std::size_t tags = 2;
  if (parts.size() == 6) {
    if (!is_digit(parts[2].front())) {
      return std::nullopt;  // PEP 427: a build tag starts with a digit
    }
    out.build = std::string(parts[2]);
    tags = 3;
  }
  out.python_tag = std::string(parts[tags]);
  out.abi_tag = std::string(parts[tags + 1]);
  out.platform_tag = std::string(parts[tags + 2]);
  return out;
}

std::optional<TorchBuildTag> parse_torch_build_tag(std::string_view label_or_version) {
  if (label_or_version.size() > k_max_wheel_name_chars) {
    return std::nullopt;
  }
  std::string_view label = label_or_version;
  if (std::size_t plus = label.find('+'); plus != std::string_view::npos) {
    label.remove_prefix(plus + 1);
  }
  TorchBuildTag tag;
  auto digits_at = [&](std::size_t i) {
    std::size_t end = i;
    while (end < label.size() && is_digit(label[end])) {
      ++end;
    }
    return label.substr(i, end - i);
  };
  if (label.starts_with("cu")) {
    tag.cuda = std::string(digits_at(2));
  }
  std::size_t torch = label.find("torch");
  if (torch == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t i = torch + 5;
  std::string_view major = digits_at(i);
  if (major.empty() || i + major.size() >= label.size() || label[i + major.size()] != '.') {
    return std::nullopt;
  }
  std::string_view minor = digits_at(i + major.size() + 1);
  if (minor.empty()) {
    return std::nullopt;
  }
  tag.torch = std::string(major) + "." + std::string(minor);
  if (std::size_t abi = label.find("cxx11abi"); abi != std::string_view::npos) {
    std::string_view value = label.substr(abi + 8);
    if (equals_ignoring_case(value.substr(0, std::min<std::size_t>(value.size(), 4)), "true")) {
      tag.cxx11_abi = true;
    } else if (equals_ignoring_case(value.substr(0, std::min<std::size_t>(value.size(), 5)), "false")) {
      tag.cxx11_abi = false;
    }
  }
  return tag;
}

}  // namespace gd
