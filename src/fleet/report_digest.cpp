#include "fleet/report_digest.hpp"

#include <charconv>

#include "fleet/bounded_text.hpp"
#include "fleet/json_scan.hpp"
#include "report/report.hpp"
#include "util/secret_scrub.hpp"

namespace gd {
namespace {

// Bounds on what one report may put into the digest: a hostile report cannot make a node's
// entry large (ids and severities are short; titles and fix steps are a sentence or a command).
constexpr std::size_t k_max_short = 256;        // ids, severities, scopes, actions, host, timestamp
constexpr std::size_t k_max_text = 2048;        // title, first fix step
constexpr std::size_t k_max_findings = 1000;    // more than the rule base has rules
constexpr std::size_t k_max_depth = 256;        // deeper nesting than any report has: refused
constexpr std::size_t k_max_items = 1024;       // items of one list fact kept (a fact's list of wheels, GPUs)

// Where the parser is, as far as the digest cares.
enum class Where { root, run, findings, finding, fix, facts, fact, fact_list, elsewhere };

// The digest's reading of the report's values (fleet/json_scan's handler): what it keeps, and the
// first reason the document is no report. Keys and strings are views into the text: only what is
// kept is copied.
class DigestReader {
 public:
  explicit DigestReader(const FleetFactSelection* selection) : m_selection(selection) {}

  ReportDigest digest;
  std::string format;          ///< a capture's "format"
  bool root_is_object = false;
  bool root_seen = false;
  bool has_schema = false;
  bool has_findings = false;
  std::string problem;         ///< the first reason this is no report

  void null() {
    if (ignored()) return;
    scalar_of_other_type("null");
  }
  void boolean(bool value) {
    if (ignored()) return;
    if (fact_scalar(value ? "true" : "false")) return;
    scalar_of_other_type("a boolean");
  }
  // A number is what nlohmann made of it: an integer when it fits 64 bits (signed when negative),
  // else a fraction (its text as written).
  void number(std::string_view text, bool integral) {
    if (ignored()) return;
    if (integral) {
      const char* end = text.data() + text.size();
      if (text.starts_with('-')) {
        std::int64_t value = 0;
        if (auto r = std::from_chars(text.data(), end, value); r.ec == std::errc() && r.ptr == end) {
          if (fact_scalar(std::to_string(value))) return;
          integer(value);
          return;
        }
      } else {
        std::uint64_t value = 0;
        if (auto r = std::from_chars(text.data(), end, value); r.ec == std::errc() && r.ptr == end) {
          if (fact_scalar(std::to_string(value))) return;
          integer(value > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(value));
          return;
        }
      }
    }
    if (fact_scalar(text)) return;
    scalar_of_other_type("a fraction");
  }

  void string(std::string_view value) {
    if (ignored()) return;
    mark_root_scalar();
    if (top() == Where::fact && m_key == "state") {
      assign_bounded(current_fact().state, value, k_max_short);
      return;
    }
    if (fact_scalar(value)) return;
    std::string* target = string_target();
    if (target != nullptr) {
      assign_bounded(*target, value, top() == Where::finding && m_key == "title" ? k_max_text : k_max_short);
    } else if (top() == Where::findings) {
      note_scalar_finding("a string");
    } else if (top() == Where::root && m_key == "schema_version") {
      note("not a gpudoctor report: schema_version is a string");
    } else if (top() == Where::root && m_key == "format") {
      assign_bounded(format, value, k_max_short);
    } else if (top() == Where::fix) {
      if (!m_fix_seen) assign_bounded(current_finding().first_fix, value, k_max_text);
      m_fix_seen = true;
    }
  }

  bool open(bool array) { return open_value(array); }
  void close() { close_value(); }

  void key(std::string_view value) {
    if (top() == Where::facts) {
      // A fact's name: kept whole for the selection's test (a longer one is no fact of any layer).
      m_fact_selected = value.size() <= k_max_short && m_selection != nullptr && m_selection->selects(value) &&
                        digest.facts.size() < k_max_digest_facts;
      if (m_fact_selected) m_fact_name = value;
    }
    m_key = value;  // compared with short names only, and named in a message only when it is one
  }

 private:
  const FleetFactSelection* m_selection;
  std::vector<Where> m_stack;
  std::string_view m_key;  ///< the last key read (fleet/json_scan keeps it valid until the next)
  bool m_fix_seen = false;
  bool m_fact_selected = false;  ///< the fact whose object opens next is one the selection reads
  std::string m_fact_name;

  DigestFact& current_fact() { return digest.facts.back(); }

  /// A selected fact's scalar value, or an item of its list value: kept as text. False when the
  /// parser is anywhere else.
  bool fact_scalar(std::string_view text) {
    if (top() == Where::fact && m_key == "value") {
      assign_bounded(current_fact().value, text, k_max_text);
      return true;
    }
    if (top() == Where::fact_list) {
      if (current_fact().items.size() < k_max_items) {
        current_fact().items.emplace_back();
        assign_bounded(current_fact().items.back(), text, k_max_text);
      }
      return true;
    }
    return false;
  }

  Where top() const { return m_stack.empty() ? Where::elsewhere : m_stack.back(); }
  /// A scalar inside a value the digest does not read (most of a report: its facts and
  /// capture): nothing to do.
  bool ignored() const { return root_seen && top() == Where::elsewhere; }
  DigestFinding& current_finding() { return digest.findings.back(); }

  void note(std::string text) {
    if (problem.empty()) problem = std::move(text);
  }

  void mark_root_scalar() {
    if (!root_seen) root_seen = true;  // a bare scalar document: root_is_object stays false
  }

  std::string finding_label() const { return "findings[" + std::to_string(digest.findings.size() - 1) + "]"; }

  /// The digest field the current key names, when its value should be a string.
  std::string* string_target() {
    switch (top()) {
      case Where::run:
        if (m_key == "host") return &digest.host;
        if (m_key == "started") return &digest.started;
        if (m_key == "scope") return &digest.scope;
        return nullptr;
      case Where::finding: {
        DigestFinding& f = current_finding();
        if (m_key == "id") return &f.id;
        if (m_key == "severity") return &f.severity;
        if (m_key == "scope") return &f.scope;
        if (m_key == "action") return &f.action;
        if (m_key == "title") return &f.title;
        return nullptr;
      }
      default: return nullptr;
    }
  }

  void integer(std::int64_t value) {
    mark_root_scalar();
    if (top() == Where::root && m_key == "schema_version") {
      digest.schema_version = value;
      has_schema = true;
      return;
    }
    scalar_of_other_type("a number");
  }

  /// A non-string value: fine anywhere but where the digest expects a string or the version.
  void scalar_of_other_type(const char* what) {
    mark_root_scalar();
    if (top() == Where::root && m_key == "schema_version") {
      note(std::string("not a gpudoctor report: schema_version is ") + what);
    } else if (string_target() != nullptr) {
      note("not a gpudoctor report: " + std::string(top() == Where::run ? "run" : finding_label()) + "." +
           std::string(m_key) + " is " + what + ", not a string");
    } else if (top() == Where::fix) {
      m_fix_seen = true;
    } else if (top() == Where::findings) {
      note_scalar_finding(what);
    }
  }

  void note_scalar_finding(const std::string& what) {
    note("not a gpudoctor report: findings[" + std::to_string(digest.findings.size()) + "] is " + what +
         ", not an object");
  }

  bool open_value(bool array) {
    if (m_stack.size() >= k_max_depth) {
      note("not a gpudoctor report: nested more than " + std::to_string(k_max_depth) + " levels deep");
      return false;  // stops the parser: nothing deeper is read
    }
    Where here = Where::elsewhere;
    if (!root_seen) {
      root_seen = true;
      root_is_object = !array;
      here = array ? Where::elsewhere : Where::root;
    } else if (top() == Where::root && m_key == "run") {
      here = array ? Where::elsewhere : Where::run;
      if (array) note("not a gpudoctor report: run is an array");
    } else if (top() == Where::root && m_key == "facts") {
      here = array ? Where::elsewhere : Where::facts;  // a report whose facts are no object has none a fleet reads
    } else if (top() == Where::facts) {
      if (!array && m_fact_selected) {
        digest.facts.push_back(DigestFact{m_fact_name, "", false, "", {}});
        here = Where::fact;
      }
    } else if (top() == Where::fact && m_key == "value" && array) {
      current_fact().is_list = true;
      here = Where::fact_list;
    } else if (top() == Where::root && m_key == "findings") {
      if (array) {
        here = Where::findings;
        has_findings = true;
      } else {
        note("not a gpudoctor report: findings is not a list");
      }
    } else if (top() == Where::findings) {
      if (!array && digest.findings.size() < k_max_findings) {
        digest.findings.emplace_back();
        here = Where::finding;
      } else if (array) {
        note("not a gpudoctor report: findings[" + std::to_string(digest.findings.size()) + "] is a list");
      }
    } else if (top() == Where::finding && m_key == "fix" && array) {
      here = Where::fix;
      m_fix_seen = false;
    } else if (string_target() != nullptr) {
      note("not a gpudoctor report: " + std::string(top() == Where::run ? "run" : finding_label()) + "." +
           std::string(m_key) + " is not a string");
    }
    m_stack.push_back(here);
    return true;
  }

  void close_value() {
    if (!m_stack.empty()) {
      if (m_stack.back() == Where::finding && current_finding().id.empty()) {
        note("not a gpudoctor report: " + finding_label() + " has no id");
      }
      m_stack.pop_back();
    }
  }
};

/// Another node's report (made by another binary, or edited by hand) is printed again: its
/// strings lose any token of a known shape (util/secret_scrub), as this binary's own output does.
void scrub_digest_secrets(ReportDigest& digest) {
  for (std::string* text : {&digest.host, &digest.started, &digest.scope}) *text = scrub_known_secrets(*text);
  for (DigestFinding& f : digest.findings) {
    for (std::string* text : {&f.id, &f.severity, &f.scope, &f.action, &f.title, &f.first_fix}) {
      *text = scrub_known_secrets(*text);
    }
  }
  for (DigestFact& f : digest.facts) {
    f.value = scrub_known_secrets(f.value);
    for (std::string& item : f.items) item = scrub_known_secrets(item);
  }
}

bool digits(std::string_view text, std::size_t from, std::size_t count) {
  if (from + count > text.size()) return false;
  for (std::size_t i = from; i < from + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

}  // namespace

bool is_report_timestamp(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fff]Z: fixed widths, so that two of them compare as text.
  if (t.size() != 20 && t.size() != 24) return false;
  bool frame = digits(t, 0, 4) && t[4] == '-' && digits(t, 5, 2) && t[7] == '-' && digits(t, 8, 2) && t[10] == 'T' &&
               digits(t, 11, 2) && t[13] == ':' && digits(t, 14, 2) && t[16] == ':' && digits(t, 17, 2) && t.back() == 'Z';
  return frame && (t.size() == 20 || (t[19] == '.' && digits(t, 20, 3)));
}

std::expected<ReportDigest, std::string> digest_report(std::string_view text, const FleetFactSelection* selection) {
  bool whole_document = false;
  return digest_report(text, selection, whole_document);
}

std::expected<ReportDigest, std::string> digest_report(std::string_view text, const FleetFactSelection* selection,
                                                       bool& whole_document) {
  DigestReader reader(selection);
  JsonScanError error;
  bool brace_at_line_start = false;
  const JsonScanEnd end = scan_json(text, reader, error, &brace_at_line_start);
  whole_document = end == JsonScanEnd::complete && !brace_at_line_start;
  switch (end) {
    case JsonScanEnd::complete: break;
    case JsonScanEnd::invalid: return std::unexpected("not valid JSON: " + json_error_text(text, error));
    case JsonScanEnd::stopped:  // nested too deep: the first problem says so, or an earlier one
      return std::unexpected(reader.problem.empty() ? std::string("not valid JSON") : reader.problem);
  }
  if (!reader.root_is_object) return std::unexpected(std::string("not a gpudoctor report: the JSON is not an object"));
  if (reader.format == "gpudoctor-capture") {
    return std::unexpected(std::string("a gpudoctor capture, not a report (`gpudoctor replay FILE --json --no-capture` "
                                       "makes its report)"));
  }
  if (!reader.has_schema && reader.problem.empty()) {
    return std::unexpected(std::string("not a gpudoctor report: it has no schema_version"));
  }
  if (reader.has_schema && reader.digest.schema_version > k_report_schema_version) {
    return std::unexpected("schema_version " + std::to_string(reader.digest.schema_version) +
                           " is newer than this gpudoctor reads (" + std::to_string(k_report_schema_version) +
                           "): read it with a newer gpudoctor");
  }
  if (reader.has_schema && reader.digest.schema_version < 1) {
    return std::unexpected("not a gpudoctor report: schema_version " + std::to_string(reader.digest.schema_version));
  }
  if (!reader.problem.empty()) return std::unexpected(reader.problem);
  if (!reader.has_findings) return std::unexpected(std::string("not a gpudoctor report: it has no findings list"));
  if (!is_report_timestamp(reader.digest.started)) reader.digest.started.clear();  // unreadable: as if absent
  scrub_digest_secrets(reader.digest);
  return std::move(reader.digest);
}

}  // namespace gd
