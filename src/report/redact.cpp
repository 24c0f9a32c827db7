#include "report/redact.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "core/fact_key.hpp"
#include "report/redact_accounts.hpp"
#include "util/text_codec.hpp"

namespace gd {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

/// One identifying piece found in a text: `keep` characters that stay (a prefix such as "GPU-"),
/// then `length` characters that go, replaced by `placeholder` in text.
struct Piece {
  std::size_t keep = 0;
  std::size_t length = 0;
  std::string_view placeholder;
};

/// GPU-<uuid> and MIG-<uuid> (and MIG-GPU-<uuid>/...): the 8-4-4-4-12 hex digits go.
std::optional<Piece> uuid_at(std::string_view text, std::size_t at) {
  std::string_view prefix = text.substr(at, 4);
  if (prefix != "GPU-" && prefix != "MIG-") return std::nullopt;
  constexpr std::array<std::size_t, 5> k_groups = {8, 4, 4, 4, 12};
  std::size_t pos = at + 4;
  for (std::size_t g = 0; g < k_groups.size(); ++g) {
    for (std::size_t i = 0; i < k_groups[g]; ++i, ++pos) {
      if (pos >= text.size() || !is_hex(text[pos])) return std::nullopt;
    }
    if (g + 1 < k_groups.size()) {
      if (pos >= text.size() || text[pos] != '-') return std::nullopt;
      ++pos;
    }
  }
  return Piece{4, 36, "<uuid>"};
}

/// /home/<name> and /Users/<name>: the name goes.
std::optional<Piece> home_user_at(std::string_view text, std::size_t at) {
  for (std::string_view home : {std::string_view("/home/"), std::string_view("/Users/")}) {
    if (text.substr(at, home.size()) != home) continue;
    std::size_t end = at + home.size();
    while (end < text.size() && text[end] != '/' && text[end] != ':' && text[end] != ' ' && text[end] != '"' &&
           text[end] != '\n' && text[end] != '\0') {
      ++end;
    }
    if (end == at + home.size()) return std::nullopt;
    return Piece{home.size(), end - at - home.size(), "<user>"};
  }
  return std::nullopt;
}

bool starts_with_ignoring_case(std::string_view text, std::size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  }
  return true;
}

/// Serial numbers as the kernel log writes them, where a capture keeps its lines:
///   NVRM: GPU Board Serial Number: 1653923026510           (with an Xid, after "GPU at PCI:...")
///   NVRM: GPU 0000:5d:00.0: GPU serial number is 1653923026510.   (GPU fallen off the bus)
///   usb 1-1: SerialNumber: 0123ABCD                         (every USB device the kernel announces)
/// The number goes: the run of characters up to a space, quote or line end, less a final '.'.
std::optional<Piece> serial_at(std::string_view text, std::size_t at) {
  if (at > 0 && std::isalpha(static_cast<unsigned char>(text[at - 1]))) return std::nullopt;
  std::size_t pos = 0;
  for (std::string_view phrase : {std::string_view("serial number is "), std::string_view("serial number:"),
                                  std::string_view("serialnumber:")}) {
    if (starts_with_ignoring_case(text, at, phrase)) {
      pos = at + phrase.size();
      break;
    }
  }
  if (pos == 0) return std::nullopt;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::size_t end = pos;
  while (end < text.size() && static_cast<unsigned char>(text[end]) > ' ' && text[end] != '"' && text[end] != '\x7f') ++end;
  if (end > pos && text[end - 1] == '.') --end;
  if (end == pos) return std::nullopt;
  return Piece{pos - at, end - pos, "<serial>"};
}

/// A whole-word host name (not inside a longer name: gpu-node-17 is not in gpu-node-170).
std::optional<Piece> host_name_at(std::string_view text, std::size_t at, const std::vector<std::string>& names) {
  if (at > 0 && name_char(text[at - 1])) return std::nullopt;
  for (const std::string& name : names) {
    if (name.empty() || text.substr(at, name.size()) != name) continue;
    if (at + name.size() < text.size() && name_char(text[at + name.size()])) continue;
    return Piece{0, name.size(), "<host>"};
  }
  return std::nullopt;
}

/// A person's home folder outside /home (/data/users/bob, from the capture's /etc/passwd), not
/// inside a longer name: its last part goes.
std::optional<Piece> other_home_at(std::string_view text, std::size_t at, const std::vector<std::string>& homes) {
  for (const std::string& home : homes) {
    if (text.substr(at, home.size()) != home) continue;
    if (at + home.size() < text.size() && name_char(text[at + home.size()])) continue;
    std::size_t name = home.rfind('/') + 1;
    return Piece{name, home.size() - name, "<user>"};
  }
  return std::nullopt;
}

bool is_kept_comm(std::string_view comm);

/// "pid 4121 (python) since ...", as a fact lists the processes it found (the fabric manager
/// probe's older CUDA processes): the name goes unless it is one of NVIDIA's daemons, as it does
/// from the capture's /proc/PID/comm and stat. A name is at most 15 bytes (TASK_COMM_LEN).
std::optional<Piece> process_name_at(std::string_view text, std::size_t at) {
  if (text.substr(at, 4) != "pid " || (at > 0 && name_char(text[at - 1]))) return std::nullopt;
  std::size_t pos = at + 4;
  const std::size_t digits = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  if (pos == digits || text.substr(pos, 2) != " (") return std::nullopt;
  const std::size_t name = pos + 2;
  const std::size_t close = text.find(')', name);
  if (close == std::string_view::npos || close == name || close - name > 15) return std::nullopt;
  if (is_kept_comm(text.substr(name, close - name))) return std::nullopt;
  return Piece{name - at, close - name, "<process>"};
}

enum class Fill { placeholder, same_length };

/// `input` with every identifying piece replaced: by its placeholder, or, in a binary file, by as
/// many 'x' so that every offset in the file (ld.so.cache's string table, ELF sections) still holds.
std::string redact(std::string_view input, const Redactor& r, Fill fill) {
  const std::vector<std::string>& host_names = r.host_names;
  std::string out;
  out.reserve(input.size());
  std::size_t i = 0;
  // Every piece starts with one of a few characters: most positions are passed over at once.
  std::string starts = "GM/sSp";
  for (const std::string& name : host_names) {
    if (!name.empty()) starts += name[0];
  }
  while (i < input.size()) {
    if (starts.find(input[i]) == std::string::npos) {
      out += input[i++];
      continue;
    }
    std::optional<Piece> piece = uuid_at(input, i);
    if (!piece) piece = home_user_at(input, i);
    if (!piece) piece = serial_at(input, i);
    if (!piece) piece = host_name_at(input, i, host_names);
    if (!piece && input[i] == 'p') piece = process_name_at(input, i);
    if (!piece && input[i] == '/') piece = other_home_at(input, i, r.other_homes);
    if (!piece) {
      out += input[i++];
      continue;
    }
    out.append(input.substr(i, piece->keep));
    if (fill == Fill::placeholder) {
      out.append(piece->placeholder);
    } else {
      out.append(piece->length, 'x');
    }
    i += piece->keep + piece->length;
  }
  return out;
}

// The daemons the services probe looks for, and those the fabric manager probe passes over
// (TASK_COMM_LEN-cut names): kept so that a redacted capture still replays to the same findings.
constexpr std::array<std::string_view, 4> k_kept_comms = {"nvidia-persiste", "nv-fabricmanage", "nvidia-imex",
                                                          "nv-hostengine"};

// A capture's file content as text: its "lines" joined, or its "base64" decoded.
std::optional<std::string> capture_text(const nlohmann::json& read) {
  if (!read.is_object()) return std::nullopt;
  if (read.contains("lines") && read["lines"].is_array()) {
    std::string text;
    bool first = true;
    for (const nlohmann::json& line : read["lines"]) {
      if (!line.is_string()) return std::nullopt;
      if (!first) text += '\n';
      text += line.get<std::string>();
      first = false;
    }
    return text;
  }
  if (read.contains("base64") && read["base64"].is_string()) return base64_decode(read["base64"].get<std::string>());
  return std::nullopt;
}

/// `read` (a capture's "read" entry) with its content replaced by `text`: as lines where it is
/// UTF-8 (a passwd was base64 for a real name in Latin-1, which is gone), else as base64.
void set_capture_text(nlohmann::json& read, const std::string& text) {
  if (!is_valid_utf8(text)) {
    read = nlohmann::json{{"base64", base64_encode(text)}};
    return;
  }
  read = nlohmann::json{{"lines", split_lines_exact(text)}};
}

/// /proc/<pid>/<file>: one process's file.
bool is_proc_pid_file(std::string_view path, std::string_view file) {
  if (!path.starts_with("/proc/") || !path.ends_with(file) || path.size() < 6 + 1 + file.size()) return false;
  std::string_view pid = path.substr(6, path.size() - 6 - file.size());
  if (!pid.ends_with('/')) return false;
  pid.remove_suffix(1);
  if (pid.empty()) return false;
  for (char c : pid) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool is_kept_comm(std::string_view comm) {
  return std::find(k_kept_comms.begin(), k_kept_comms.end(), comm) != k_kept_comms.end();
}

/// A /proc/<pid>/stat line with the process's name (between the first '(' and the last ')',
/// proc(5)) replaced, unless it is a kept daemon's: the fields after it stay for a replay.
std::string redact_stat_line(const std::string& line) {
  std::size_t open = line.find('(');
  std::size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return line;
  if (is_kept_comm(std::string_view(line).substr(open + 1, close - open - 1))) return line;
  return line.substr(0, open + 1) + "<process>" + line.substr(close);
}

}  // namespace

Redactor Redactor::for_facts(const FactSet& facts) {
  Redactor r;
  if (auto name = facts.get_string("host.name"_fact); name && name->size() >= 2 && *name != "localhost") {
    r.host_names.push_back(*name);
    // The short name too, when the host name is a fully qualified one.
    if (std::size_t dot = name->find('.'); dot != std::string::npos && dot >= 2) r.host_names.push_back(name->substr(0, dot));
  }
  return r;
}

void Redactor::add_accounts(const nlohmann::json& capture) {
  if (!capture.is_object() || !capture.contains("paths") || !capture["paths"].is_object()) return;
  const nlohmann::json& paths = capture["paths"];
  auto entry = paths.find("/etc/passwd");
  if (entry == paths.end() || !entry->is_object() || !entry->contains("read")) return;
  std::optional<std::string> text = capture_text((*entry)["read"]);
  if (!text) return;
  PeopleAccounts people = people_accounts(*text);
  account_names.insert(account_names.end(), people.names.begin(), people.names.end());
  other_homes.insert(other_homes.end(), people.other_homes.begin(), people.other_homes.end());
}

std::string Redactor::text(std::string_view input) const { return redact(input, *this, Fill::placeholder); }

std::string Redactor::bytes(std::string_view input) const { return redact(input, *this, Fill::same_length); }

void Redactor::json(nlohmann::json& value) const {
  if (value.is_string()) {
    value = text(value.get<std::string>());
  } else if (value.is_array()) {
    for (nlohmann::json& item : value) json(item);
  } else if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [key, item] : value.items()) {
      if (is_proc_pid_file(key, "comm") && item.is_object() && item.contains("read") && item["read"].contains("lines")) {
        nlohmann::json& lines = item["read"]["lines"];
        bool kept = !lines.empty() && lines[0].is_string() && is_kept_comm(lines[0].get<std::string>());
        if (!kept) lines = nlohmann::json::array({"<process>", ""});
      }
      // The stat line names the process too (the fabric manager probe reads every one's start time).
      if (is_proc_pid_file(key, "stat") && item.is_object() && item.contains("read") && item["read"].contains("lines")) {
        for (nlohmann::json& line : item["read"]["lines"]) {
          if (line.is_string()) line = redact_stat_line(line.get<std::string>());
        }
      }
      // The account files: people's names, real names and member lists go (the rest of the
      // redaction then runs over what is left).
      if ((key == "/etc/passwd" || key == "/etc/group") && item.is_object() && item.contains("read")) {
        if (std::optional<std::string> content = capture_text(item["read"])) {
          set_capture_text(item["read"], key == "/etc/passwd" ? redact_passwd(*content) : redact_group(*content, account_names));
        }
      }
      // A capture keeps binary file contents (ld.so.cache, ELF headers) as base64: redacted as bytes.
      if (key == "base64" && item.is_string()) {
        if (auto decoded = base64_decode(item.get<std::string>())) {
          out[key] = base64_encode(bytes(*decoded));
          continue;
        }
      }
      json(item);
      out[text(key)] = std::move(item);
    }
    value = std::move(out);
  }
}

}  // namespace gd
