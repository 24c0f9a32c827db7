#pragma once
// Reads the inputs of `gpudoctor fleet` into its tally (issue 27 item 2: seconds for 10,000
// reports). The main thread opens the inputs in order; the work (reading a file, cutting an input
// into reports, fleet/report_splitter, and reducing each to its digest, fleet/report_digest: the
// units and events of cli/fleet_work) runs on up to `jobs - 1` worker threads, and on the main
// thread too while the work in flight is at its bound; the results reach the tally in input
// order, so the output is the same, byte for byte, with any number of threads.
//   - A file of at most k_fleet_whole_file_bytes when opened (a report is 60-120 KB) is handed
//     over unread: a worker reads it whole, cuts it and digests its reports.
//   - A larger file and standard input stay streams: the main thread reads them in chunks and
//     cuts them, and each report goes to a worker on its own.
// Memory is bounded: at most k_window_units pieces of work per job, and k_window_bytes of the
// streams' reports, are in flight between the reading and the tally (beyond that the main thread
// works or waits); a file handed over unread gets its buffer only when a thread reads it, so the
// files' text in memory is one file per thread and the spare buffers kept for reuse.

#include <cstddef>
#include <string>
#include <vector>

#include "fleet/fleet_facts.hpp"
#include "fleet/fleet_tally.hpp"

namespace gd {

/// Worker threads by default: the cores this process may run on, at most 8.
unsigned default_fleet_jobs();

/// Reads each input (a file, a folder of *.json and *.jsonl files, or `-` for standard input)
/// into `tally` on `jobs` threads in all: this one opens the inputs, tells the tally and works
/// when the work in flight is at its bound; the other jobs - 1 read, cut and digest (0 or 1: all
/// on this thread).
void read_fleet_inputs(const std::vector<std::string>& paths, FleetTally& tally, const FleetFactSelection& selection,
                       unsigned jobs);

}  // namespace gd
