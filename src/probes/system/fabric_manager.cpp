#include "probes/system/fabric_manager.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <ctime>

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "probes/shared/process_comm.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

constexpr std::string_view k_log = "/var/log/fabricmanager.log";  // LOG_FILE_NAME's default (fabricmanager.cfg)
constexpr std::string_view k_version_marker = "Fabric Manager version ";
constexpr std::uint64_t k_log_tail = 1 << 20;          // the start lines are short; a busy log grows by lines per job
constexpr std::size_t k_max_stat_bytes = 4096;         // one line; comm is at most 64 bytes
constexpr std::size_t k_max_proc_stat_bytes = 1 << 20;  // one "cpuN" line per CPU before btime
// Linux reports /proc times in USER_HZ ticks, 100 a second on every architecture gpudoctor runs
// on (include/uapi/asm-generic/param.h; sysconf(_SC_CLK_TCK)); a --root tree has no sysconf.
constexpr std::uint64_t k_user_hz = 100;
// The fd scan: only processes older than the fabric manager, oldest first, bounded three ways.
constexpr std::size_t k_max_candidates = 4096;      // processes whose open files are looked at
constexpr std::size_t k_max_fds_per_process = 16384;
constexpr std::size_t k_max_links = 262144;         // readlinks in all (~100 ms at worst)
constexpr std::size_t k_max_listed = 8;             // processes named in the fact

// NVIDIA's own daemons, which hold GPUs without running jobs and start before the fabric manager
// at boot: nvidia-persistenced, DCGM's nv-hostengine, the IMEX daemon (comm, cut to 15 characters).
constexpr std::array<std::string_view, 3> k_daemons = {"nvidia-persiste", "nv-hostengine", "nvidia-imex"};

struct OlderProcess {
  std::string pid;
  std::uint64_t start_ticks = 0;
};

/// What the fd scan found among the processes older than the fabric manager.
struct ScanResult {
  std::vector<std::string> listed;  ///< the CUDA processes, oldest first, as the fact lists them
  std::size_t unreadable = 0;       ///< processes whose open files this user cannot see
  std::string unreadable_reason;
  bool cut = false;                 ///< a bound stopped the scan
};

ScanResult scan_older_processes(Host& host, std::vector<OlderProcess> older, std::uint64_t fm_ticks,
                                const std::optional<std::int64_t>& boot) {
  ScanResult result;
  std::ranges::sort(older, {}, &OlderProcess::start_ticks);
  if (older.size() > k_max_candidates) {
    older.resize(k_max_candidates);
    result.cut = true;
  }
  std::size_t links = 0;
  for (const OlderProcess& process : older) {
    if (result.listed.size() >= k_max_listed) break;
    const std::string folder = "/proc/" + process.pid + "/fd";
    auto fds = host.list_dir(folder);
    if (!fds) {
      if (fds.error().code == EACCES || fds.error().code == EPERM) {
        ++result.unreadable;
        result.unreadable_reason = unreadable_reason(fds.error(), host);
      }
      continue;  // ENOENT: it ended meanwhile
    }
    bool gpu = false;
    bool uvm = false;
    std::size_t looked = 0;
    for (const std::string& fd : *fds) {
      if (looked++ >= k_max_fds_per_process || links >= k_max_links) {
        result.cut = true;
        break;
      }
      ++links;
      auto target = host.read_link(folder + "/" + fd);
      if (!target) continue;
      gpu = gpu || is_gpu_node(*target);
      uvm = uvm || is_uvm_node(*target);
      if (gpu && uvm) break;
    }
    if (!(gpu && uvm)) continue;
    std::string comm = process_comm(host, process.pid).value_or("?");
    if (std::ranges::find(k_daemons, comm) != k_daemons.end()) continue;
    std::uint64_t before = (fm_ticks - process.start_ticks) / k_user_hz;
    std::string since = boot ? utc_text(*boot + static_cast<std::int64_t>(process.start_ticks / k_user_hz))
                             : fmt::format("{} s after boot", process.start_ticks / k_user_hz);
    result.listed.push_back(fmt::format("pid {} ({}) since {}, {} before the fabric manager", process.pid, comm, since,
                                        duration_text(before)));
    if (links >= k_max_links) break;
  }
  return result;
}

// The facts of the start comparison, set together where it cannot be made.
constexpr FactName k_start_facts[] = {"service.fabricmanager.started_s"_fact, "service.fabricmanager.started"_fact,
                                      "service.fabricmanager.older_cuda_processes"_fact,
                                      "service.fabricmanager.restarted_under_cuda_processes"_fact};

void set_unknown_all(FactSet& facts, const std::string& reason, const std::string& source) {
  for (FactName fact : k_start_facts) facts.set_unknown(fact, reason, source);
}

void set_absent_all(FactSet& facts, const std::string& source, const std::string& reason) {
  for (FactName fact : k_start_facts) facts.set_absent(fact, source, reason);
}

void probe_start(Host& host, FactSet& facts, const std::optional<std::string>& fm_pid, const std::vector<std::string>& pids) {
  const Fact* running = facts.find("service.fabricmanager.running"_fact);
  // services.cpp's reason when /proc could be listed and held no process (a /proc it could not
  // list stays unknown).
  if (pids.empty() && running && running->state == FactState::unknown && running->reason == "/proc lists no processes") {
    // A folder or capture without processes (--root of an image, a capture without /proc): no
    // running system whose fabric manager could have restarted under anything.
    set_absent_all(facts, "/proc", "no processes here: nothing runs to compare");
    return;
  }
  if (!running || running->state != FactState::present) {
    set_unknown_all(facts, running ? "service.fabricmanager.running: " + running->reason : "the process scan did not run",
                    "/proc/*/comm");
    return;
  }
  if (!fm_pid) {
    set_absent_all(facts, "/proc/*/comm", "no nv-fabricmanager runs");
    return;
  }
  const std::string stat_path = "/proc/" + *fm_pid + "/stat";
  auto stat = host.read_file(stat_path, k_max_stat_bytes);
  std::optional<std::uint64_t> fm_ticks = stat ? proc_start_ticks(*stat) : std::nullopt;
  if (!fm_ticks) {
    set_unknown_all(facts, stat ? stat_path + ": no start time in it" : stat_path + ": " + unreadable_reason(stat.error(), host),
                    stat_path);
    return;
  }
  facts.set("service.fabricmanager.started_s"_fact, static_cast<std::int64_t>(*fm_ticks / k_user_hz), stat_path);
  auto proc_stat = host.read_file("/proc/stat", k_max_proc_stat_bytes);
  std::optional<std::int64_t> boot = proc_stat ? proc_boot_time(*proc_stat) : std::nullopt;
  if (boot) {
    facts.set("service.fabricmanager.started"_fact, utc_text(*boot + static_cast<std::int64_t>(*fm_ticks / k_user_hz)),
              stat_path + ", /proc/stat btime");
  } else {
    facts.set_unknown("service.fabricmanager.started"_fact, "/proc/stat has no btime line", "/proc/stat");
  }

  // Every process that started before the fabric manager (its own threads are not in /proc's list).
  std::vector<OlderProcess> older;
  for (const std::string& pid : pids) {
    if (pid == *fm_pid) continue;
    auto text = host.read_file("/proc/" + pid + "/stat", k_max_stat_bytes);
    if (!text) continue;  // ended meanwhile
    auto ticks = proc_start_ticks(*text);
    if (ticks && *ticks < *fm_ticks) older.push_back({pid, *ticks});
  }
  ScanResult scan = scan_older_processes(host, std::move(older), *fm_ticks, boot);
  const std::string source = "/proc/*/stat, /proc/*/fd";
  if (!scan.listed.empty()) {
    facts.set("service.fabricmanager.older_cuda_processes"_fact, scan.listed, source);
    facts.set("service.fabricmanager.restarted_under_cuda_processes"_fact, true, source);
    return;
  }
  std::string why;
  if (scan.unreadable > 0) {
    why = fmt::format("the open files of {} process(es) older than the fabric manager cannot be read ({}): only root "
                      "sees other users' open files",
                      scan.unreadable, scan.unreadable_reason);
  } else if (scan.cut) {
    why = fmt::format("the scan of open files stopped at its bound ({} processes, {} links)", k_max_candidates, k_max_links);
  }
  if (!why.empty()) {
    facts.set_unknown("service.fabricmanager.older_cuda_processes"_fact, why, source);
    facts.set_unknown("service.fabricmanager.restarted_under_cuda_processes"_fact, why, source);
    return;
  }
  facts.set("service.fabricmanager.older_cuda_processes"_fact, std::vector<std::string>{}, source);
  facts.set("service.fabricmanager.restarted_under_cuda_processes"_fact, false, source);
}

void probe_version(Host& host, FactSet& facts) {
  const std::string path(k_log);
  auto st = host.stat(path);
  if (!st) {
    if (st.error().code == ENOENT) {
      facts.set_absent("service.fabricmanager.version"_fact, path, "no fabric manager log");
      facts.set_absent("service.fabricmanager.version_mismatch"_fact, path, "no fabric manager log");
    } else {
      std::string reason = path + ": " + unreadable_reason(st.error(), host);
      facts.set_unknown("service.fabricmanager.version"_fact, reason, path);
      facts.set_unknown("service.fabricmanager.version_mismatch"_fact, reason, path);
    }
    return;
  }
  // The tail: the last start is the newest line of its kind.
  std::uint64_t offset = st->size > k_log_tail ? st->size - k_log_tail : 0;
  auto tail = host.read_range(path, offset, static_cast<std::size_t>(k_log_tail));
  std::optional<std::string> version;
  std::string reason;
  if (!tail) {
    reason = path + ": " + unreadable_reason(tail.error(), host);
  } else if (!(version = fabric_manager_log_version(*tail))) {
    reason = offset > 0 ? fmt::format("{}: no start line in its last {} MiB", path, k_log_tail >> 20)
                        : path + ": no start line in it";
  }
  if (!version) {
    facts.set_unknown("service.fabricmanager.version"_fact, reason, path);
    facts.set_unknown("service.fabricmanager.version_mismatch"_fact, reason, path);
    return;
  }
  facts.set("service.fabricmanager.version"_fact, *version, path);
  const Fact* driver = facts.find("kmod.nvidia.version"_fact);
  const std::string source = path + ", kmod.nvidia.version";
  if (!driver || driver->state != FactState::present) {
    facts.set_unknown("service.fabricmanager.version_mismatch"_fact,
                      "kmod.nvidia.version: " + (driver ? driver->reason : std::string("not collected")), source);
    return;
  }
  const std::string loaded = std::get<std::string>(driver->value);
  if (loaded == *version) {
    facts.set_absent("service.fabricmanager.version_mismatch"_fact, source, "the same version");
  } else {
    facts.set("service.fabricmanager.version_mismatch"_fact,
              fmt::format("nv-fabricmanager {} (its last start in {}) against the loaded nvidia.ko {}", *version, path, loaded),
              source);
  }
}

}  // namespace

std::optional<std::uint64_t> proc_start_ticks(std::string_view stat) {
  std::size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos) return std::nullopt;
  std::string_view rest = stat.substr(paren + 1);
  // Fields 3 (state) onwards; starttime is field 22: the 20th after the name.
  int field = 2;
  while (!rest.empty()) {
    rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
    std::size_t end = std::min(rest.find(' '), rest.size());
    std::string_view token = rest.substr(0, end);
    rest.remove_prefix(end);
    if (token.empty()) break;
    if (++field == 22) {
      std::uint64_t ticks = 0;
      auto [ptr, error] = std::from_chars(token.data(), token.data() + token.size(), ticks);
      if (error != std::errc() || ptr != token.data() + token.size()) return std::nullopt;
      return ticks;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> proc_boot_time(std::string_view proc_stat) {
  for (std::string_view line : split_nonempty_lines(proc_stat)) {
    if (!line.starts_with("btime ")) continue;
    std::string_view digits = trim_whitespace(line.substr(6));
    std::int64_t seconds = 0;
    auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), seconds);
    if (error != std::errc() || ptr != digits.data() + digits.size() || seconds <= 0) return std::nullopt;
    return seconds;
  }
  return std::nullopt;
}

std::optional<std::string> fabric_manager_log_version(std::string_view log) {
  std::size_t at = log.size();
  while (at > 0) {
    at = log.rfind(k_version_marker, at - 1);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = log.substr(at + k_version_marker.size());
    std::size_t end = rest.find_first_not_of("0123456789.");
    std::string_view version = rest.substr(0, end);
    // "Fabric Manager version 580.95.05 is running with the following configuration options"
    if (!version.empty() && end != std::string_view::npos && rest.substr(end).starts_with(" is running")) {
      return std::string(version);
    }
  }
  return std::nullopt;
}

bool is_gpu_node(std::string_view target) {
  if (!target.starts_with("/dev/nvidia")) return false;
  std::string_view digits = target.substr(11);
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

bool is_uvm_node(std::string_view target) { return target == "/dev/nvidia-uvm"; }

std::string utc_text(std::int64_t epoch_seconds) {
  std::time_t time = static_cast<std::time_t>(epoch_seconds);
  std::tm parts{};
  if (::gmtime_r(&time, &parts) == nullptr) return fmt::format("{} s after the epoch", epoch_seconds);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                     parts.tm_hour, parts.tm_min, parts.tm_sec);
}

std::string duration_text(std::uint64_t seconds) {
  if (seconds < 60) return fmt::format("{} s", seconds);
  if (seconds < 3600) return fmt::format("{} min", seconds / 60);
  if (seconds < 86400) return fmt::format("{} h {} min", seconds / 3600, seconds % 3600 / 60);
  return fmt::format("{} d {} h", seconds / 86400, seconds % 86400 / 3600);
}

void probe_fabric_manager(Host& host, FactSet& facts, const std::optional<std::string>& fm_pid,
                          const std::vector<std::string>& pids) {
  probe_start(host, facts, fm_pid, pids);
  probe_version(host, facts);
}

}  // namespace gd
