#include "report/prometheus_text.hpp"

#include <cmath>
#include <cstdio>

#include "util/secret_scrub.hpp"
#include "util/text_codec.hpp"

namespace gd {
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string prom_escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size();) {
    char c = value[i];
    std::size_t n = utf8_sequence_length(value, i);
    if (n == 0) {
      out += k_replacement;
      ++i;
      continue;
    }
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if ((n == 1 && static_cast<unsigned char>(c) < 0x20) || c == 0x7f) {
      out += k_replacement;
    } else {
      out.append(value.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string prom_escape_help(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string prom_int(std::int64_t value) { return std::to_string(value); }

std::string prom_seconds(double seconds) {
  if (!std::isfinite(seconds)) return std::string(k_prom_nan);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds);
  return buffer;
}

void PromWriter::family(std::string_view name, std::string_view type, std::string_view help) {
  m_name = name;
  m_text += "# HELP ";
  m_text += name;
  m_text += ' ';
  m_text += prom_escape_help(help);
  m_text += "\n# TYPE ";
  m_text += name;
  m_text += ' ';
  m_text += type;
  m_text += '\n';
}

void PromWriter::sample(const PromLabels& labels, std::string_view value) {
  m_text += m_name;
  if (!labels.empty()) {
    m_text += '{';
    bool first = true;
    for (const auto& [name, label_value] : labels) {
      if (!first) m_text += ',';
      first = false;
      m_text += name;
      m_text += "=\"";
      // A label is a host's string (a driver version, a GPU's UUID) that monitoring stores
      // and ships on: a token of a known shape never becomes one, whoever renders metrics.
      m_text += prom_escape_label_value(scrub_known_secrets(label_value));
      m_text += '"';
    }
    m_text += '}';
  }
  m_text += ' ';
  m_text += value;
  m_text += '\n';
}

}  // namespace gd
