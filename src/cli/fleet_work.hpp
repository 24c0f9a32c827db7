#pragma once
// The work of `gpudoctor fleet`, apart from the thread that does it (cli/fleet_reader: the main
// thread or a worker): an input or a report read into a FleetUnit becomes FleetEvents (its
// reports' digests, the problems found in it), and FleetMerge hands them to the tally in input
// order, naming each report by its input and line, as one thread reading them would.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleet/fleet_facts.hpp"
#include "fleet/fleet_tally.hpp"
#include "fleet/report_digest.hpp"
#include "fleet/report_splitter.hpp"

namespace gd {

/// One report (with its capture) at most.
inline constexpr std::size_t k_fleet_max_report_bytes = 64u << 20;

// What the reading found, in input order: the tally is told in this order whatever thread
// found it.
struct FleetEvent {
  enum class Kind { unreadable, input_begins, problem, report, read_failed, input_ends };
  Kind kind = Kind::unreadable;
  std::string text;    ///< unreadable: the path; input_begins: the input's name; problem: its reason;
                       ///< report: why it is none (when digest is empty); read_failed: the error
  std::string reason;  ///< unreadable: why
  std::int64_t line = 1;     ///< problem, report: the line it starts on
  bool always_line = false;  ///< input_begins: name its reports with their line even on line 1
  std::optional<ReportDigest> digest;
  std::vector<std::optional<std::string>> values;  ///< the node's value of each compared fact
};

// A piece of work, and then its result.
struct FleetUnit {
  enum class Work { none, document, whole_input };
  Work work = Work::none;
  std::string text;        ///< document: the report; whole_input: the input's bytes
  std::int64_t line = 1;   ///< document: the line it starts on
  std::string read_error;  ///< whole_input: the read failed after `text` (empty: it did not)
  std::size_t bytes = 0;   ///< text's size when it was handed over (the window's count)
  std::vector<FleetEvent> events;
  bool done = false;
};

/// A problem the splitter found (text between reports, a truncated report, one over the bound).
FleetEvent problem_event(const StreamPiece& piece);

/// The work of a unit, on whichever thread: its text becomes its events. Pure but for the unit.
void do_work(FleetUnit& unit, const FleetFactSelection& selection);

// The tally's side: events in input order, each input's reports named by its name and line, and
// at most 20 problems listed per input (then one line says how many more).
class FleetMerge {
 public:
  explicit FleetMerge(FleetTally& tally) : m_tally(tally) {}

  /// The next event, in input order.
  void apply(FleetEvent& event);

 private:
  // A report is named by its input, with the line it begins on unless that is the first
  // (standard input always has the line: "-:1").
  std::string where(std::int64_t line) const;
  void problem(std::string at, std::string reason);

  FleetTally& m_tally;
  std::string m_name;
  bool m_always_line = false;
  int m_problems = 0;
  int m_documents = 0;
};

}  // namespace gd
