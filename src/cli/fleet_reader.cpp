#include "cli/fleet_reader.hpp"

#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "fleet/byte_words.hpp"
#include "fleet/report_digest.hpp"
#include "fleet/report_splitter.hpp"
#include "sys/input_files.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_report_bytes = 64u << 20;   // one report (with its capture) at most
constexpr std::size_t k_chunk_bytes = 256u << 10;       // read size
constexpr std::size_t k_whole_file_bytes = 4u << 20;    // a file up to this is one piece of work
constexpr std::size_t k_window_bytes = 16u << 20;       // input text in flight, at most (beyond one piece)
constexpr std::size_t k_window_units_per_job = 4;       // pieces of work in flight per worker
constexpr std::size_t k_spare_bytes = 16u << 20;        // buffers kept for the next inputs, at most
constexpr std::size_t k_spare_least = 16u << 10;        // a smaller buffer is not worth keeping
constexpr int k_max_problems_per_input = 20;            // then one line says how many more
constexpr std::string_view k_report_suffixes[] = {".json", ".jsonl"};

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

FleetEvent report_event(std::int64_t line, std::expected<ReportDigest, std::string> digest,
                        const FleetFactSelection& selection) {
  FleetEvent event;
  event.kind = FleetEvent::Kind::report;
  event.line = line;
  if (digest) {
    event.values = selection.node_values(digest->facts);
    event.digest = std::move(*digest);
  } else {
    event.text = std::move(digest.error());
  }
  return event;
}

FleetEvent problem_event(const StreamPiece& piece) {
  FleetEvent event;
  event.kind = FleetEvent::Kind::problem;
  event.line = piece.line;
  event.text = piece.reason;
  return event;
}

/// A whole input that the splitter would cut into one document, as most files are: after an
/// optional byte order mark and whitespace, '{' or '[' up to the end, with no line inside that
/// starts with '{' (the splitter cuts there). Whether that document is all of the input (nothing
/// but whitespace after it) is the reader's to say: the caller falls back to the splitter when it
/// says no. The document and the line it starts on, or nullopt.
std::optional<std::pair<std::string_view, std::int64_t>> lone_document(std::string_view text) {
  std::size_t at = text.starts_with("\xef\xbb\xbf") ? 3 : 0;
  std::int64_t line = 1;
  for (; at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'); ++at) {
    if (text[at] == '\n') ++line;
  }
  if (at == text.size() || (text[at] != '{' && text[at] != '[')) return std::nullopt;
  std::string_view document = text.substr(at);
  if (document.size() > k_max_report_bytes) return std::nullopt;
  if (byte_words::find_pair(document.data(), document.size(), '\n', '{') != document.size()) return std::nullopt;
  return std::pair{document, line};
}

/// The work of a unit, on whichever thread: pure but for the unit.
void do_work(FleetUnit& unit, const FleetFactSelection& selection) {
  if (unit.work == FleetUnit::Work::whole_input && unit.read_error.empty()) {
    // A file of one report is read once, by the reader, not by the splitter first.
    if (auto lone = lone_document(unit.text)) {
      bool valid_json = false;
      auto digest = digest_report(lone->first, &selection, valid_json);
      if (valid_json) {
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
    ReportSplitter splitter(k_max_report_bytes);
    auto sink = [&](const StreamPiece& piece) {
      if (piece.kind == StreamPiece::Kind::problem) {
        unit.events.push_back(problem_event(piece));
      } else {
        unit.events.push_back(report_event(piece.line, digest_report(piece.text, &selection), selection));
      }
    };
    splitter.feed(unit.text, sink);
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
}

// The tally's side: events in input order, each input's reports named by its name and line, and
// at most k_max_problems_per_input problems listed per input.
class FleetMerge {
 public:
  explicit FleetMerge(FleetTally& tally) : m_tally(tally) {}

  void apply(FleetEvent& event) {
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

 private:
  // A report is named by its input, with the line it begins on unless that is the first
  // (standard input always has the line: "-:1").
  std::string where(std::int64_t line) const {
    return m_always_line || line != 1 ? m_name + ":" + std::to_string(line) : m_name;
  }
  void problem(std::string at, std::string reason) {
    if (++m_problems <= k_max_problems_per_input) m_tally.add_unreadable(std::move(at), std::move(reason));
  }

  FleetTally& m_tally;
  std::string m_name;
  bool m_always_line = false;
  int m_problems = 0;
  int m_documents = 0;
};

// Units in input order: workers take those with work in any order, the main thread merges them
// from the front as they are done. The window (units not yet merged) is bounded.
class WorkPool {
 public:
  WorkPool(unsigned jobs, const FleetFactSelection& selection, FleetMerge& merge)
      : m_selection(selection), m_merge(merge), m_max_units(std::max(1u, jobs) * k_window_units_per_job) {
    if (jobs < 2) return;
    try {
      for (unsigned i = 0; i < jobs; ++i) m_threads.emplace_back([this] { work(); });
    } catch (const std::system_error&) {
      // No more threads to be had: those that started do the work (or this thread, if none).
    }
  }
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  ~WorkPool() {
    {
      std::lock_guard lock(m_mutex);
      m_stopping = true;
    }
    m_work_ready.notify_all();
    for (std::thread& thread : m_threads) thread.join();
  }

  void submit(std::unique_ptr<FleetUnit> unit) {
    if (m_threads.empty()) {
      do_work(*unit, m_selection);
      give_back(std::move(unit->text));
      for (FleetEvent& event : unit->events) m_merge.apply(event);
      return;
    }
    unit->bytes = unit->text.size();
    std::unique_lock lock(m_mutex);
    m_window_bytes += unit->bytes;
    if (unit->work == FleetUnit::Work::none) {
      unit->done = true;
    } else {
      m_pending.push_back(unit.get());
      m_work_ready.notify_one();
    }
    m_window.push_back(std::move(unit));
    merge_done(lock, /*wait=*/false);
    while (!m_window.empty() && (m_window.size() > m_max_units || m_window_bytes > k_window_bytes)) {
      merge_done(lock, /*wait=*/true);
    }
  }

  /// A buffer for the next input's text: one a finished unit gave back (its pages are mapped
  /// already: a fresh one of 100 KB costs more in page faults than reading the file), or none.
  std::string take_buffer() {
    std::lock_guard lock(m_spare_mutex);
    if (m_spares.empty()) return {};
    std::string buffer = std::move(m_spares.back());
    m_spares.pop_back();
    m_spare_bytes -= buffer.capacity();
    return buffer;
  }

  /// Every unit merged.
  void drain() {
    std::unique_lock lock(m_mutex);
    while (!m_window.empty()) merge_done(lock, /*wait=*/true);
  }

 private:
  // Merges the units at the front that are done; with `wait`, waits for the front one first.
  void merge_done(std::unique_lock<std::mutex>& lock, bool wait) {
    if (wait) m_unit_done.wait(lock, [&] { return m_window.front()->done; });
    while (!m_window.empty() && m_window.front()->done) {
      std::unique_ptr<FleetUnit> unit = std::move(m_window.front());
      m_window.pop_front();
      m_window_bytes -= unit->bytes;
      lock.unlock();
      for (FleetEvent& event : unit->events) m_merge.apply(event);
      unit.reset();
      lock.lock();
    }
  }

  void work() {
    std::unique_lock lock(m_mutex);
    while (true) {
      m_work_ready.wait(lock, [&] { return m_stopping || !m_pending.empty(); });
      if (m_pending.empty()) return;  // stopping, and nothing left
      FleetUnit* unit = m_pending.front();
      m_pending.pop_front();
      lock.unlock();
      do_work(*unit, m_selection);
      give_back(std::move(unit->text));
      lock.lock();
      unit->done = true;
      m_unit_done.notify_one();
    }
  }

  // A unit's text, once worked on: kept for take_buffer() while the spares are few, else freed.
  void give_back(std::string&& text) {
    text.clear();
    std::lock_guard lock(m_spare_mutex);
    if (text.capacity() >= k_spare_least && m_spare_bytes + text.capacity() <= k_spare_bytes) {
      m_spare_bytes += text.capacity();
      m_spares.push_back(std::move(text));
    } else {
      std::string().swap(text);
    }
  }

  const FleetFactSelection& m_selection;
  FleetMerge& m_merge;
  std::size_t m_max_units;
  std::mutex m_spare_mutex;
  std::vector<std::string> m_spares;
  std::size_t m_spare_bytes = 0;
  std::mutex m_mutex;
  std::condition_variable m_work_ready;
  std::condition_variable m_unit_done;
  std::deque<std::unique_ptr<FleetUnit>> m_window;  ///< not yet merged, in input order
  std::deque<FleetUnit*> m_pending;                 ///< not yet taken by a worker
  std::size_t m_window_bytes = 0;
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};

// The main thread's part: opens and reads the inputs in order and hands them over.
class InputReader {
 public:
  explicit InputReader(WorkPool& pool) : m_pool(pool), m_buffer(k_chunk_bytes) {}

  void read_path(const std::string& path) {
    if (path == "-") {
      InputStream in = InputStream::standard_input();
      read_stream(in, "-", /*always_line=*/true, {});
      return;
    }
    InputClass kind = classify_input(path);
    if (kind.kind == InputKind::unusable) {
      unreadable(path, kind.reason);
    } else if (kind.kind == InputKind::file) {
      read_opened(path, InputStream::open_file(path));
    } else {
      std::size_t before = m_files;
      walk_input_folder(
          path, k_report_suffixes,
          [&](const std::string& file, std::expected<InputStream, std::string> in) { read_opened(file, std::move(in)); },
          [&](const std::string& where, const std::string& reason) { unreadable(where, reason); });
      if (m_files == before) unreadable(path, "no *.json or *.jsonl file in this folder");
    }
  }

  /// Hands over what is still held here.
  void flush() {
    if (m_ready) m_pool.submit(std::move(m_ready));
  }

 private:
  WorkPool& m_pool;
  std::vector<char> m_buffer;
  std::size_t m_files = 0;
  std::unique_ptr<FleetUnit> m_ready;  ///< events found here, handed over before the next work

  void event(FleetEvent e) {
    if (!m_ready) m_ready = std::make_unique<FleetUnit>();
    m_ready->events.push_back(std::move(e));
  }
  void unreadable(const std::string& path, const std::string& reason) {
    FleetEvent e;
    e.text = path;
    e.reason = reason;
    event(std::move(e));
  }
  FleetEvent begins(const std::string& name, bool always_line) {
    FleetEvent e;
    e.kind = FleetEvent::Kind::input_begins;
    e.text = name;
    e.always_line = always_line;
    return e;
  }
  void submit(std::unique_ptr<FleetUnit> unit) {
    flush();
    m_pool.submit(std::move(unit));
  }

  void read_opened(const std::string& path, std::expected<InputStream, std::string> in) {
    ++m_files;
    if (!in) {
      unreadable(path, in.error());
      return;
    }
    // Read whole when small: the worker cuts it too.
    auto unit = std::make_unique<FleetUnit>();
    unit->work = FleetUnit::Work::whole_input;
    unit->text = m_pool.take_buffer();
    unit->events.push_back(begins(path, /*always_line=*/false));
    while (unit->text.size() <= k_whole_file_bytes) {
      auto n = in->read(m_buffer);
      if (!n) {
        unit->read_error = n.error();
        break;
      }
      if (*n == 0) break;
      unit->text.append(m_buffer.data(), *n);
    }
    if (unit->text.size() <= k_whole_file_bytes || !unit->read_error.empty()) {
      submit(std::move(unit));
      return;
    }
    read_stream(*in, path, /*always_line=*/false, std::move(unit->text));  // a large file: a stream
  }

  // A stream: cut here, each report handed over on its own. `head` was read from it already.
  void read_stream(InputStream& in, const std::string& name, bool always_line, std::string head) {
    event(begins(name, always_line));
    ReportSplitter splitter(k_max_report_bytes);
    auto sink = [&](const StreamPiece& piece) {
      if (piece.kind == StreamPiece::Kind::problem) {
        event(problem_event(piece));
        return;
      }
      auto unit = std::make_unique<FleetUnit>();
      unit->work = FleetUnit::Work::document;
      unit->line = piece.line;
      unit->text = m_pool.take_buffer();
      unit->text.assign(piece.text);
      submit(std::move(unit));
    };
    splitter.feed(head, sink);
    std::string().swap(head);
    while (true) {
      auto n = in.read(m_buffer);
      if (!n) {
        FleetEvent failed;
        failed.kind = FleetEvent::Kind::read_failed;
        failed.text = n.error();
        event(std::move(failed));
        break;
      }
      if (*n == 0) break;
      splitter.feed(std::string_view(m_buffer.data(), *n), sink);
    }
    splitter.finish(sink);
    FleetEvent ends;
    ends.kind = FleetEvent::Kind::input_ends;
    event(std::move(ends));
  }
};

}  // namespace

unsigned default_fleet_jobs() {
  unsigned cores = 0;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) cores = static_cast<unsigned>(CPU_COUNT(&set));
  if (cores == 0) cores = std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, 8u);
}

void read_fleet_inputs(const std::vector<std::string>& paths, FleetTally& tally, const FleetFactSelection& selection,
                       unsigned jobs) {
  FleetMerge merge(tally);
  WorkPool pool(jobs, selection, merge);
  InputReader reader(pool);
  for (const std::string& path : paths) reader.read_path(path);
  reader.flush();
  pool.drain();
}

}  // namespace gd
