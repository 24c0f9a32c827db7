#include "cli/fleet_work.hpp"

#include <algorithm>

namespace gd {
namespace {

constexpr int k_max_problems_per_input = 20;  // then one line says how many more

FleetEvent report_event(std::int64_t line, std::expected<ReportDigest, std::string> digest,
                        const FleetFactSelection& selection) {
  FleetEvent event;
  event.kind = FleetEvent::Kind::report;
  event.line = line;
  if (digest) {
    event.values = selection.node_values(digest->facts);
    std::vector<DigestFact>().swap(digest->facts);  // the tally needs only their values: freed here, not held
    event.digest = std::move(*digest);
  } else {
    event.text = std::move(digest.error());
  }
  return event;
}

}  // namespace

FleetEvent problem_event(const StreamPiece& piece) {
  FleetEvent event;
  event.kind = FleetEvent::Kind::problem;
  event.line = piece.line;
  event.text = piece.reason;
  return event;
}

namespace {

/// A whole input that the splitter would cut into one document, as most files are: after an
/// optional byte order mark and whitespace, '{' or '[' up to the end. Whether that document is
/// all of the input (nothing but whitespace after it), and whether no line inside it starts with
/// '{' (the splitter would cut there), is the reader's to say: the caller falls back to the
/// splitter when it says no. The document and the line it starts on, or nullopt.
std::optional<std::pair<std::string_view, std::int64_t>> lone_document(std::string_view text) {
  std::size_t at = text.starts_with("\xef\xbb\xbf") ? 3 : 0;
  std::int64_t line = 1;
  for (; at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'); ++at) {
    if (text[at] == '\n') ++line;
  }
  if (at == text.size() || (text[at] != '{' && text[at] != '[')) return std::nullopt;
  std::string_view document = text.substr(at);
  if (document.size() > k_fleet_max_report_bytes) return std::nullopt;
  return std::pair{document, line};
}

/// Reads a read_file unit's file into its text, to its end or until the text is larger than
/// k_fleet_whole_file_bytes (the file grew since it was opened). True when the file was not read
/// to its end: the caller reads the rest as a stream. A read error is kept in read_error.
bool read_file_text(FleetUnit& unit) {
  unit.work = FleetUnit::Work::whole_input;
  InputStream& file = *unit.file;
  const std::uint64_t expected = file.size_at_open().value_or(0);
  while (unit.text.size() <= k_fleet_whole_file_bytes) {
    // The file's size and a little more in the first read, so that the second, which says it
    // ended, needs no larger buffer (growing it would copy the file); a chunk's worth when it grew.
    std::size_t most = k_fleet_chunk_bytes;
    if (expected >= unit.text.size() && expected - unit.text.size() < k_fleet_whole_file_bytes) {
      most = expected - unit.text.size() + k_fleet_chunk_bytes / 16;
    }
    auto n = file.read_append(unit.text, most);
    if (!n) {
      unit.read_error = n.error();
      return false;
    }
    if (*n == 0) return false;
  }
  return true;
}

}  // namespace

void do_work(FleetUnit& unit, const FleetFactSelection& selection) {
  const bool more = unit.work == FleetUnit::Work::read_file && read_file_text(unit);
  if (unit.work == FleetUnit::Work::whole_input && unit.read_error.empty() && !more) {
    // A file of one report is read once, by the reader, not by the splitter first.
    if (auto lone = lone_document(unit.text)) {
      bool whole_document = false;
      auto digest = digest_report(lone->first, &selection, whole_document);
      if (whole_document) {
        unit.events.push_back(report_event(lone->second, std::move(digest), selection));
        FleetEvent ends;
        ends.kind = FleetEvent::Kind::input_ends;
        unit.events.push_back(std::move(ends));
        unit.work = FleetUnit::Work::none;
      }
    }
  }
  if (unit.work == FleetUnit::Work::document) {
    unit.events.push_back(report_event(unit.line, digest_report(unit.text, &selection), selection));
  } else if (unit.work == FleetUnit::Work::whole_input) {
    ReportSplitter splitter(k_fleet_max_report_bytes);
    auto sink = [&](const StreamPiece& piece) {
      if (piece.kind == StreamPiece::Kind::problem) {
        unit.events.push_back(problem_event(piece));
      } else {
        unit.events.push_back(report_event(piece.line, digest_report(piece.text, &selection), selection));
      }
    };
    splitter.feed(unit.text, sink);
    while (more) {  // the rest of a file that grew: a stream (the splitter keeps what it needs)
      unit.text.clear();
      auto n = unit.file->read_append(unit.text, k_fleet_chunk_bytes);
      if (!n) {
        unit.read_error = n.error();
        break;
      }
      if (*n == 0) break;
      splitter.feed(unit.text, sink);
    }
    if (!unit.read_error.empty()) {
      FleetEvent failed;
      failed.kind = FleetEvent::Kind::read_failed;
      failed.text = unit.read_error;
      unit.events.push_back(std::move(failed));
    }
    splitter.finish(sink);
    FleetEvent ends;
    ends.kind = FleetEvent::Kind::input_ends;
    unit.events.push_back(std::move(ends));
  }
  unit.file.reset();  // closed on the thread that read it
}

void FleetMerge::apply(FleetEvent& event) {
  switch (event.kind) {
    case FleetEvent::Kind::unreadable: m_tally.add_unreadable(std::move(event.text), std::move(event.reason)); break;
    case FleetEvent::Kind::input_begins:
      m_name = std::move(event.text);
      m_always_line = event.always_line;
      m_problems = 0;
      m_documents = 0;
      break;
    case FleetEvent::Kind::problem: problem(where(event.line), std::move(event.text)); break;
    case FleetEvent::Kind::report:
      ++m_documents;
      if (event.digest) {
        m_tally.add_report(where(event.line), *event.digest, event.values);
      } else {
        problem(where(event.line), std::move(event.text));
      }
      break;
    case FleetEvent::Kind::read_failed: problem(m_name, "read failed: " + event.text); break;
    case FleetEvent::Kind::input_ends:
      if (m_documents == 0 && m_problems == 0) m_tally.add_unreadable(m_name, "empty: no report in it");
      if (m_problems > k_max_problems_per_input) {
        m_tally.add_unreadable(m_name, std::to_string(m_problems - k_max_problems_per_input) +
                                           " more parts of this input could not be read");
      }
      break;
  }
}

std::string FleetMerge::where(std::int64_t line) const {
  return m_always_line || line != 1 ? m_name + ":" + std::to_string(line) : m_name;
}

void FleetMerge::problem(std::string at, std::string reason) {
  if (++m_problems <= k_max_problems_per_input) m_tally.add_unreadable(std::move(at), std::move(reason));
}

}  // namespace gd
