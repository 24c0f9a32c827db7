#include "sys/replay_host.hpp"

#include <algorithm>
#include <cerrno>
#include <set>
#include <stdexcept>

#include "sys/env_allowlist.hpp"

namespace gd {
namespace {

std::unexpected<IoError> io_error(int code) { return std::unexpected(IoError{code}); }

std::string parent_of(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) {
    return "/";
  }
  return std::string(path.substr(0, slash));
}

/// `path` with "." and ".." taken out and repeated slashes merged ("/" at least).
std::string normalise(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string_view::npos) {
      next = path.size();
    }
    std::string_view part = path.substr(pos, next - pos);
    if (part == "..") {
      if (!parts.empty()) {
        parts.pop_back();
      }
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = next + 1;
  }
  std::string out;
  for (std::string_view part : parts) {
    out += '/';
    out += part;
  }
  return out.empty() ? "/" : out;
}

/// The absolute path a link at `path` with `target` points to (relative targets start in
/// the link's folder: "/lib" -> "usr/lib" is "/usr/lib").
std::string link_destination(std::string_view path, std::string_view target) {
  if (target.starts_with("/")) {
    return normalise(target);
  }
  return normalise(parent_of(path) + "/" + std::string(target));
}

}  // namespace

const CapturedPath* ReplayHost::find(std::string_view path) const {
  auto it = m_capture.paths.find(std::string(path));
  return it == m_capture.paths.end() ? nullptr : &it->second;
}

std::vector<std::string> ReplayHost::implied_children(std::string_view path) const {
  std::string prefix(path);
  if (prefix.empty() || prefix.back() != '/') {
    prefix += '/';
  }
  std::set<std::string> names;
  for (auto it = m_capture.paths.lower_bound(prefix); it != m_capture.paths.end(); ++it) {
    if (!it->first.starts_with(prefix)) {
      break;
    }
    std::string rest = it->first.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('/'));
    if (!name.empty()) {
      names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

IoResult<FileStat> ReplayHost::implied_stat(std::string_view path, int hops) const {
  const CapturedPath* p = find(path);
  if (p && p->stat) {
    return *p->stat;
  }
  if (p && p->link && *p->link) {
    if (hops > 40) {
      return io_error(ELOOP);
    }
    return implied_stat(link_destination(path, **p->link), hops + 1);
  }
  if (p && p->read && *p->read) {
    FileStat st;
    st.kind = FileKind::regular;
    st.mode = 0644;
    st.size = (*p->read)->size();
    return st;
  }
  if ((p && p->list && *p->list) || !implied_children(path).empty() || path == "/") {
    FileStat st;
    st.kind = FileKind::directory;
    st.mode = 0755;
    return st;
  }
  if (p && p->read && !*p->read) {
    return std::unexpected(p->read->error());
  }
  return io_error(ENOENT);
}

IoResult<std::string> ReplayHost::follow_links(std::string_view path) const {
  std::string current(path);
  for (int hops = 0; hops <= 40; ++hops) {
    const CapturedPath* p = find(current);
    if (!p || !p->link || !*p->link) {
      return current;
    }
    current = link_destination(current, **p->link);
  }
  return io_error(ELOOP);
}

IoResult<std::string> ReplayHost::read_file(std::string_view path, std::size_t max_bytes) {
  const CapturedPath* p = find(path);
  if (p && p->read) {
    if (!*p->read) {
      return std::unexpected(p->read->error());
    }
    return (*p->read)->substr(0, max_bytes);
  }
  if (p && p->link && *p->link) {
    // Nothing was read at the link itself: read what it points to, as open(2) would.
    auto target = follow_links(path);
    if (!target) {
      return std::unexpected(target.error());
    }
    return read_file(*target, max_bytes);
  }
  auto st = implied_stat(path, 0);
  if (!st) {
    return std::unexpected(st.error());
  }
  return io_error(st->kind == FileKind::directory ? EISDIR : ENXIO);
}

IoResult<std::string> ReplayHost::read_range(std::string_view path, std::uint64_t offset, std::size_t max_bytes) {
  if (const CapturedPath* p = find(path)) {
    for (const CapturedRange& range : p->ranges) {
      if (range.offset == offset) {
        if (!range.data) {
          return std::unexpected(range.data.error());
        }
        return range.data->substr(0, max_bytes);
      }
    }
  }
  // A hand-written host may give the whole content instead of ranges.
  auto whole = read_file(path, static_cast<std::size_t>(offset) + max_bytes);
  if (!whole) {
    return std::unexpected(whole.error());
  }
  if (offset >= whole->size()) {
    return std::string();
  }
  return whole->substr(static_cast<std::size_t>(offset), max_bytes);
}

IoResult<std::string> ReplayHost::read_kernel_log(std::size_t max_bytes) {
  const CapturedPath* p = find(k_kernel_log_path);
  if (!p || !p->read) {
    return io_error(ENOENT);
  }
  if (!*p->read) {
    return std::unexpected(p->read->error());
  }
  const std::string& log = **p->read;
  return log.size() > max_bytes ? log.substr(log.size() - max_bytes) : log;
}

IoResult<std::vector<std::string>> ReplayHost::list_dir(std::string_view path) {
  const CapturedPath* p = find(path);
  if (p && p->list) {
    return *p->list;
  }
  auto children = implied_children(path);
  if (!children.empty()) {
    return children;
  }
  if (p && p->link && *p->link) {
    auto target = follow_links(path);
    if (!target) {
      return std::unexpected(target.error());
    }
    return list_dir(*target);
  }
  auto st = implied_stat(path, 0);
  if (!st) {
    return std::unexpected(st.error());
  }
  if (st->kind != FileKind::directory) {
    return io_error(ENOTDIR);
  }
  return std::vector<std::string>{};
}

IoResult<FileStat> ReplayHost::stat(std::string_view path) { return implied_stat(path, 0); }

IoResult<FileStat> ReplayHost::lstat(std::string_view path) {
  const CapturedPath* p = find(path);
  if (p && p->lstat) {
    return *p->lstat;
  }
  if (p && p->link && *p->link) {
    FileStat st;
    st.kind = FileKind::symlink;
    st.mode = 0777;
    return st;
  }
  return implied_stat(path, 0);
}

IoResult<std::string> ReplayHost::read_link(std::string_view path) {
  const CapturedPath* p = find(path);
  if (p && p->link) {
    return *p->link;
  }
  auto st = implied_stat(path, 0);
  if (!st) {
    return std::unexpected(st.error());
  }
  return io_error(EINVAL);  // exists but is not a link
}

int ReplayHost::open_device(std::string_view path) {
  const CapturedPath* p = find(path);
  if (p && p->open) {
    return *p->open;
  }
  if (p && p->link && *p->link) {
    auto target = follow_links(path);
    return target ? open_device(*target) : target.error().code;
  }
  auto st = implied_stat(path, 0);
  if (!st) {
    return st.error().code;
  }
  return st->kind == FileKind::char_device ? 0 : ENODEV;
}

std::optional<std::string> ReplayHost::raw_env(std::string_view name) {
  if (!env_name_allowed(name)) {
    throw std::logic_error("environment variable '" + std::string(name) + "' is not on the allowlist");
  }
  auto it = m_capture.env.find(std::string(name));
  return it == m_capture.env.end() ? std::nullopt : it->second;
}

std::optional<std::string> ReplayHost::working_dir() { return m_capture.working_dir; }

Identity ReplayHost::identity() { return m_capture.identity.value_or(Identity{}); }

Uname ReplayHost::uname() {
  if (m_capture.uname) {
    return *m_capture.uname;
  }
  Uname u;
  u.sysname = "Linux";
  return u;
}

HelperOutcome ReplayHost::run_cuda_helper(const HelperRequest& request) {
  for (const auto& run : m_capture.helper_runs) {
    if (run.request.mode() == request.mode()) {
      HelperOutcome outcome = run.outcome;
      outcome.timeout_ms = run.request.timeout_ms;
      return outcome;
    }
  }
  HelperOutcome outcome;
  outcome.status = HelperOutcome::Status::not_run;
  outcome.error = "the capture holds no " + request.mode() + " helper run";
  return outcome;
}

}  // namespace gd
