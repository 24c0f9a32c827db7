#include "probes/kernel_log/kernel_log_framing.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace gd {
namespace {

constexpr std::size_t k_max_line = 4096;          // a kmsg record's text is below 1 KiB; syslog lines may be longer
constexpr std::size_t k_max_syslog_tag_at = 128;  // " kernel:" must follow the date and host name

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

bool is_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

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
  line = trim(line);
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
  return uptime ? trim(text.substr(close + 1)) : text;
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
    if (!is_digits(prio_text) || !is_digits(seq_text) ||
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

std::vector<std::string> syslog_kernel_lines(std::string_view text, bool starts_mid_line) {
  std::vector<std::string> out;
  std::vector<std::string_view> lines = split_lines(text);
  for (std::size_t i = starts_mid_line ? 1 : 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    // "<date> <host> kernel: text": the tag is the program field, before any ": " of a message.
    std::size_t tag = line.find(" kernel:");
    if (tag == std::string_view::npos || tag > k_max_syslog_tag_at ||
        line.substr(0, tag).find(": ") != std::string_view::npos) {
      continue;
    }
    std::string_view message = strip_uptime(trim(line.substr(tag + 8)));
    // rsyslog writes control characters as '#' and three octal digits: a newline is "#012".
    std::size_t pos = 0;
    while (pos <= message.size()) {
      std::size_t cut = message.find("#012", pos);
      if (cut == std::string_view::npos) {
        cut = message.size();
      }
      push_line(out, message.substr(pos, cut - pos));
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
