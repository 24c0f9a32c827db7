#pragma once
// The Prometheus text exposition format (version 0.0.4), written by hand: families with HELP
// and TYPE, samples with escaped label values. A pure text builder; what gpudoctor exports is
// in render_prometheus.cpp.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gd {

/// Label name and value of one sample; values are escaped when written.
using PromLabels = std::vector<std::pair<std::string_view, std::string>>;

/// A label value as the format wants it: backslash, double quote and newline escaped (\\, \",
/// \n); bytes that are not UTF-8, and other control characters, become U+FFFD (a parser rejects
/// invalid UTF-8, and a host's files may hold anything).
std::string prom_escape_label_value(std::string_view value);
/// HELP text: backslash and newline escaped (the format's rule for docstrings).
std::string prom_escape_help(std::string_view help);

/// Sample values: an integer, seconds with millisecond precision, or NaN (unknown).
std::string prom_int(std::int64_t value);
std::string prom_seconds(double seconds);
inline constexpr std::string_view k_prom_nan = "NaN";

class PromWriter {
 public:
  /// Starts a family: "# HELP name help" and "# TYPE name type". Samples that follow belong to it.
  void family(std::string_view name, std::string_view type, std::string_view help);
  /// One sample of the current family: name{label="value",...} value.
  void sample(const PromLabels& labels, std::string_view value);
  const std::string& text() const { return m_text; }

 private:
  std::string m_text;
  std::string m_name;
};

}  // namespace gd
