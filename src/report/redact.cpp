#include "report/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace gd {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

/// Whether `text` at `at` starts a UUID body: 8-4-4-4-12 hex digits.
bool uuid_at(std::string_view text, std::size_t at) {
  constexpr std::array<std::size_t, 5> k_groups = {8, 4, 4, 4, 12};
  std::size_t pos = at;
  for (std::size_t g = 0; g < k_groups.size(); ++g) {
    for (std::size_t i = 0; i < k_groups[g]; ++i, ++pos) {
      if (pos >= text.size() || !is_hex(text[pos])) return false;
    }
    if (g + 1 < k_groups.size()) {
      if (pos >= text.size() || text[pos] != '-') return false;
      ++pos;
    }
  }
  return true;
}

constexpr std::size_t k_uuid_length = 36;

/// GPU-<uuid> and MIG-<uuid> (and MIG-GPU-<uuid>/...): the UUID becomes "<uuid>".
std::string redact_uuids(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    bool prefix = (text.substr(i, 4) == "GPU-" || text.substr(i, 4) == "MIG-");
    if (prefix && uuid_at(text, i + 4)) {
      out.append(text.substr(i, 4));
      out.append("<uuid>");
      i += 4 + k_uuid_length;
      continue;
    }
    out += text[i++];
  }
  return out;
}

/// /home/<name>/ and /Users/<name>/: the name becomes "<user>".
std::string redact_home_users(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    bool matched = false;
    for (std::string_view home : {std::string_view("/home/"), std::string_view("/Users/")}) {
      if (text.substr(i, home.size()) != home) continue;
      std::size_t end = i + home.size();
      while (end < text.size() && text[end] != '/' && text[end] != ':' && text[end] != ' ' && text[end] != '"' &&
             text[end] != '\n') {
        ++end;
      }
      if (end > i + home.size()) {
        out.append(home);
        out.append("<user>");
        i = end;
        matched = true;
      }
      break;
    }
    if (!matched) out += text[i++];
  }
  return out;
}

/// Replaces whole-word occurrences of `word` (not inside a longer name).
std::string replace_word(std::string_view text, std::string_view word, std::string_view with) {
  if (word.empty()) return std::string(text);
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; };
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, word.size()) == word && (i == 0 || !name_char(text[i - 1])) &&
        (i + word.size() == text.size() || !name_char(text[i + word.size()]))) {
      out.append(with);
      i += word.size();
      continue;
    }
    out += text[i++];
  }
  return out;
}

// The daemons the services probe looks for (TASK_COMM_LEN-cut names): kept so that a redacted
// capture still replays to the same findings.
constexpr std::array<std::string_view, 2> k_kept_comms = {"nvidia-persiste", "nv-fabricmanage"};

bool is_proc_comm(std::string_view path) {
  if (!path.starts_with("/proc/") || !path.ends_with("/comm")) return false;
  std::string_view pid = path.substr(6, path.size() - 6 - 5);
  if (pid.empty()) return false;
  for (char c : pid) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

Redactor Redactor::for_facts(const FactSet& facts) {
  Redactor r;
  if (auto name = facts.get_string("host.name"); name && name->size() >= 2 && *name != "localhost") {
    r.host_names.push_back(*name);
    // The short name too, when the host name is a fully qualified one.
    if (std::size_t dot = name->find('.'); dot != std::string::npos && dot >= 2) r.host_names.push_back(name->substr(0, dot));
  }
  return r;
}

std::string Redactor::text(std::string_view input) const {
  std::string out = redact_home_users(redact_uuids(input));
  for (const std::string& name : host_names) out = replace_word(out, name, "<host>");
  return out;
}

void Redactor::json(nlohmann::json& value) const {
  if (value.is_string()) {
    value = text(value.get<std::string>());
  } else if (value.is_array()) {
    for (nlohmann::json& item : value) json(item);
  } else if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [key, item] : value.items()) {
      if (is_proc_comm(key) && item.is_object() && item.contains("read") && item["read"].contains("lines")) {
        nlohmann::json& lines = item["read"]["lines"];
        bool kept = !lines.empty() && lines[0].is_string() &&
                    std::find(k_kept_comms.begin(), k_kept_comms.end(), lines[0].get<std::string>()) != k_kept_comms.end();
        if (!kept) lines = nlohmann::json::array({"<process>", ""});
      }
      json(item);
      out[text(key)] = std::move(item);
    }
    value = std::move(out);
  }
}

}  // namespace gd
