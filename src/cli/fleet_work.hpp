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
#include "sys/input_files.hpp"

namespace gd {

/// One report (with its capture) at most.
inline constexpr std::size_t k_fleet_max_report_bytes = 64u << 20;
/// A file up to this size is read whole and cut in memory; a larger one is read as a stream.
inline constexpr std::size_t k_fleet_whole_file_bytes = 4u << 20;
/// The size of one read of a stream.
inline constexpr std::size_t k_fleet_chunk_bytes = 256u << 10;

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
  // read_file: an opened file of at most k_fleet_whole_file_bytes when it was opened, read here
  // (on the worker: the main thread only opens the files of a folder), then cut as a whole_input;
  // should it have grown past that, the rest is read and cut as a stream, still here.
  enum class Work { none, document, whole_input, read_file };
  Work work = Work::none;
  std::optional<InputStream> file;  ///< read_file: the file
  std::string text;        ///< document: the report; whole_input: the input's bytes (read_file: a
                           ///< buffer to read it into, perhaps with a capacity from an earlier unit)
  std::int64_t line = 1;   ///< document: the line it starts on
  std::string read_error;  ///< whole_input: the read failed after `text` (empty: it did not)
  std::size_t bytes = 0;   ///< text's capacity when it was handed over (the window's count)
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
