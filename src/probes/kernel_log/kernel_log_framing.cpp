#include "probes/kernel_log/kernel_log_framing.hpp"

#include "util/text_split.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace gd {
namespace {

constexpr std::size_t k_max_line = 4096;          // a kmsg record's text is below 1 KiB; syslog lines may be longer
constexpr std::size_t k_max_syslog_tag_at = 128;  // " kernel:" must follow the date and host name

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// dev-kmsg: "all non-printable characters and '\' itself in the log message are escaped by
// "\x00" C-style hex encoding" (kernel/printk/printk.c msg_add_ext_text).
std::string unescape_kmsg(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x' && hex_value(text[i + 2]) >= 0 &&
        hex_value(text[i + 3]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3]));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

void push_line(std::vector<std::string>& out, std::string_view line) {
  line = trim_whitespace(line);
  if (!line.empty()) {
    out.emplace_back(line.substr(0, k_max_line));
  }
}

// "[   12.345678] " as the kernel prints uptime before each console line.
std::string_view strip_uptime(std::string_view text) {
  if (!text.starts_with('[')) {
    return text;
  }
  std::size_t close = text.find(']');
  if (close == std::string_view::npos || close > 24) {
    return text;
  }
  std::string_view inside = text.substr(1, close - 1);
  bool uptime = std::all_of(inside.begin(), inside.end(),
                            [](char c) { return c == ' ' || c == '.' || std::isdigit(static_cast<unsigned char>(c)); });
  return uptime ? trim_whitespace(text.substr(close + 1)) : text;
}

// RFC 5424 section 6.2.1 / RFC 3164 section 4.1.1: "<" 1-3 digits ">", PRI = facility * 8 +
// severity, at most 191 (facility 23). rsyslog writes it where the template has %PRI%
// (RSYSLOG_SyslogProtocol23Format, a "<%PRI%>..." template); its file formats
// RSYSLOG_TraditionalFileFormat and RSYSLOG_FileFormat do not (rsyslog runtime/rsconf.c).
std::optional<int> take_pri(std::string_view& line) {
  if (!line.starts_with('<')) {
    return std::nullopt;
  }
  std::size_t close = line.find('>');
  if (close == std::string_view::npos || close < 2 || close > 4) {
    return std::nullopt;
  }
  std::string_view digits = line.substr(1, close - 1);
  int pri = 0;
  if (!all_digits(digits) || std::from_chars(digits.data(), digits.data() + digits.size(), pri).ec != std::errc() ||
      pri > 191) {
    return std::nullopt;
  }
  line.remove_prefix(close + 1);
  return pri;
}

// "<date> <host> kernel: text": the tag is the program field, before any ": " of a message.
std::optional<std::string_view> rfc3164_kernel_message(std::string_view line) {
  std::size_t tag = line.find(" kernel:");
  if (tag == std::string_view::npos || tag > k_max_syslog_tag_at ||
      line.substr(0, tag).find(": ") != std::string_view::npos) {
    return std::nullopt;
  }
  return line.substr(tag + 8);
}

std::string_view next_field(std::string_view& rest) {
  std::size_t space = rest.find(' ');
  std::string_view field = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return field;
}

// After "<PRI>1 ": TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG] (RFC 5424
// section 6). rsyslog's imklog submits the kernel's messages with the tag "kernel:"
// (plugins/imklog/imklog.c), which RFC 5424 output writes as APP-NAME "kernel".
std::optional<std::string_view> rfc5424_kernel_message(std::string_view rest) {
  next_field(rest);  // TIMESTAMP
  next_field(rest);  // HOSTNAME
  if (next_field(rest) != "kernel") {
    return std::nullopt;
  }
  next_field(rest);  // PROCID
  next_field(rest);  // MSGID
  if (rest.starts_with('-')) {
    rest.remove_prefix(1);
  } else {
    // SD-ELEMENTs "[id k="v"]...": a ']' inside a quoted value is escaped as "\]" (section 6.3.3).
    bool quoted = false;
    std::size_t i = 0;
    for (; i < rest.size(); ++i) {
      char c = rest[i];
      if (c == '\\' && quoted) {
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ']' && !quoted && (i + 1 >= rest.size() || rest[i + 1] != '[')) {
        break;
      }
    }
    if (!rest.starts_with('[') || i >= rest.size()) {
      return std::nullopt;
    }
    rest.remove_prefix(i + 1);
  }
  if (rest.starts_with("\xEF\xBB\xBF")) {
    rest.remove_prefix(3);  // the BOM that may start an UTF-8 MSG
  }
  return rest;
}

}  // namespace

std::vector<std::string> kmsg_lines(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : split_lines(text)) {
    // " KEY=value" continuation lines carry device properties, not text.
    if (line.empty() || line.front() == ' ') {
      continue;
    }
    std::size_t semicolon = line.find(';');
    if (semicolon == std::string_view::npos) {
      continue;  // a record cut at the start of the buffer
    }
    std::string_view header = line.substr(0, semicolon);
    std::size_t comma = header.find(',');
    if (comma == std::string_view::npos) {
      continue;
    }
    std::string_view prio_text = header.substr(0, comma);
    std::string_view seq_text = header.substr(comma + 1, header.find(',', comma + 1) - comma - 1);
    int prio = 0;
    if (!all_digits(prio_text) || !all_digits(seq_text) ||
        std::from_chars(prio_text.data(), prio_text.data() + prio_text.size(), prio).ec != std::errc()) {
      continue;
    }
    if ((prio >> 3) != 0) {
      continue;  // facility other than LOG_KERN: written by user space
    }
    std::string message = unescape_kmsg(line.substr(semicolon + 1));
    for (std::string_view part : split_lines(message)) {
      push_line(out, part);
    }
  }
  return out;
}

std::vector<SyslogLine> syslog_kernel_lines(std::string_view text, bool starts_mid_line) {
  std::vector<SyslogLine> out;
  std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t i = starts_mid_line ? 1 : 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    SyslogFacility facility = SyslogFacility::unrecorded;
    if (std::optional<int> pri = take_pri(line)) {
      facility = (*pri >> 3) == 0 ? SyslogFacility::kernel : SyslogFacility::user_space;
    }
    std::optional<std::string_view> message = line.starts_with("1 ") ? rfc5424_kernel_message(line.substr(2))
                                                                      : rfc3164_kernel_message(line);
    if (!message) {
      continue;
    }
    // rsyslog writes control characters as '#' and three octal digits: a newline is "#012".
    std::string_view body = strip_uptime(trim_whitespace(*message));
    std::size_t pos = 0;
    while (pos <= body.size()) {
      std::size_t cut = body.find("#012", pos);
      if (cut == std::string_view::npos) {
        cut = body.size();
      }
      std::vector<std::string> part;
      push_line(part, body.substr(pos, cut - pos));
      for (std::string& piece : part) {
        out.push_back(SyslogLine{std::move(piece), facility});
      }
      pos = cut + 4;
    }
  }
  return out;
}

std::size_t current_boot_start(const std::vector<std::string>& lines) {
  for (std::size_t i = lines.size(); i > 0; --i) {
    if (lines[i - 1].starts_with("Linux version ")) {  // init/version.c linux_banner, first line of a boot
      return i - 1;
    }
  }
  return 0;
}

}  // namespace gd
