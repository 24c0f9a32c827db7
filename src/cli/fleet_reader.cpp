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

#include "cli/fleet_work.hpp"
#include "sys/input_files.hpp"

namespace gd {
namespace {

constexpr std::size_t k_window_bytes = 16u << 20;       // input text in flight, at most (beyond one piece)
constexpr std::size_t k_window_units_per_job = 4;       // pieces of work in flight per worker
constexpr std::size_t k_spare_bytes = 16u << 20;        // buffers kept for the next inputs, at most
constexpr std::size_t k_spare_least = 16u << 10;        // a smaller buffer is not worth keeping
constexpr std::string_view k_report_suffixes[] = {".json", ".jsonl"};

// Units in input order: workers take those with work in any order, the main thread merges them
// from the front as they are done. The window (units not yet merged) is bounded; while it is full
// the main thread does the oldest waiting work itself rather than sleep, so that every thread
// works (on two cores, two threads that each read and digest, not a reader that waits). A thread
// is woken only when it waits: no wake-up per unit.
class WorkPool {
 public:
  WorkPool(unsigned jobs, const FleetFactSelection& selection, FleetMerge& merge)
      : m_selection(selection), m_merge(merge), m_max_units(std::max(1u, jobs) * k_window_units_per_job) {
    if (jobs < 2) return;
    try {  // this thread is one of the jobs: it reads, merges, and works when the window is full
      m_threads.reserve(jobs - 1);
      for (unsigned i = 1; i < jobs; ++i) m_threads.emplace_back([this] { work(); });
    } catch (const std::exception&) {
      // No more threads to be had (std::system_error, or no memory for one): those that started
      // do the work (or this thread, if none).
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
      work_on(*unit);
      for (FleetEvent& event : unit->events) m_merge.apply(event);
      return;
    }
    unit->bytes = unit->text.capacity();  // a short report may sit in a large reused buffer
    std::unique_lock lock(m_mutex);
    m_window_bytes += unit->bytes;
    if (unit->work == FleetUnit::Work::none) {
      unit->done = true;
    } else {
      m_pending.push_back(unit.get());
      if (m_idle_workers > 0) m_work_ready.notify_one();
    }
    m_window.push_back(std::move(unit));
    merge_done(lock);
    while (!m_window.empty() && (m_window.size() > m_max_units || m_window_bytes > k_window_bytes)) {
      help_or_wait(lock);
      merge_done(lock);
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
    while (!m_window.empty()) {
      help_or_wait(lock);
      merge_done(lock);
    }
  }

 private:
  // Merges the units at the front that are done.
  void merge_done(std::unique_lock<std::mutex>& lock) {
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

  // The main thread, with the window full or draining: does the oldest work no worker has taken,
  // or else waits until the front unit is done.
  void help_or_wait(std::unique_lock<std::mutex>& lock) {
    if (m_window.front()->done) return;
    if (!m_pending.empty()) {
      work_on_oldest_pending(lock);
      return;
    }
    m_main_waits = true;
    m_unit_done.wait(lock, [&] { return m_window.front()->done; });
    m_main_waits = false;
  }

  void work() {
    std::unique_lock lock(m_mutex);
    while (true) {
      ++m_idle_workers;
      m_work_ready.wait(lock, [&] { return m_stopping || !m_pending.empty(); });
      --m_idle_workers;
      if (m_pending.empty()) return;  // stopping, and nothing left
      work_on_oldest_pending(lock);
      if (m_main_waits) m_unit_done.notify_one();
    }
  }

  // Takes the oldest unit no thread has taken and works on it, without the lock meanwhile; it is
  // done when this returns (with the lock held again).
  void work_on_oldest_pending(std::unique_lock<std::mutex>& lock) {
    FleetUnit* unit = m_pending.front();
    m_pending.pop_front();
    lock.unlock();
    work_on(*unit);
    lock.lock();
    unit->done = true;
  }

  // A file handed over unread gets its buffer only now, from the spares: the units waiting in the
  // window hold none, so the text in memory is the spares' (k_spare_bytes) and the files being
  // read (one per thread), however many units wait.
  void work_on(FleetUnit& unit) {
    if (unit.work == FleetUnit::Work::read_file) unit.text = take_buffer();
    do_work(unit, m_selection);
    give_back(std::move(unit.text));
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
  unsigned m_idle_workers = 0;  ///< workers waiting for work: a new unit wakes one
  bool m_main_waits = false;    ///< the main thread waits for the front unit: a done unit wakes it
  bool m_stopping = false;
  std::vector<std::thread> m_threads;
};

// The main thread's part: opens and reads the inputs in order and hands them over.
class InputReader {
 public:
  explicit InputReader(WorkPool& pool) : m_pool(pool), m_buffer(k_fleet_chunk_bytes) {}

  void read_path(const std::string& path) {
    if (path == "-") {
      InputStream in = InputStream::standard_input();
      read_stream(in, "-", /*always_line=*/true);
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
    auto unit = std::make_unique<FleetUnit>();
    unit->events.push_back(begins(path, /*always_line=*/false));
    if (in->size_at_open().value_or(0) <= k_fleet_whole_file_bytes) {
      // Small (as report files are): read and cut by whichever thread takes it.
      unit->work = FleetUnit::Work::read_file;
      unit->file = std::move(*in);
      submit(std::move(unit));
      return;
    }
    // A large file (reports one after another): a stream, cut here and its reports handed over.
    flush();
    m_ready = std::move(unit);
    read_stream(*in, path, /*always_line=*/false, /*announced=*/true);
  }

  // A stream: cut here, each report handed over on its own.
  void read_stream(InputStream& in, const std::string& name, bool always_line, bool announced = false) {
    if (!announced) event(begins(name, always_line));
    ReportSplitter splitter(k_fleet_max_report_bytes);
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
