#include "probes/toolkit/path_search.hpp"

#include <cerrno>

#include "probes/probe.hpp"
#include "util/text_split.hpp"

namespace gd {

std::string parent_folder(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) {
    return {};
  }
  return slash == 0 ? std::string("/") : std::string(path.substr(0, slash));
}

std::string join_path(std::string_view folder, std::string_view name) {
  std::string out(folder);
  if (!out.ends_with('/')) {
    out += '/';
  }
  return out + std::string(name);
}

std::vector<std::string> path_folders(std::string_view path_value) {
  std::vector<std::string> folders;
  for (std::string_view folder : split_nonempty(path_value, ':')) {
    folders.emplace_back(folder);
  }
  return folders;
}

PathLookup find_on_path(Host& host, std::string_view path_value, std::string_view name) {
  PathLookup out;
  for (const std::string& folder : path_folders(path_value)) {
    std::string candidate = join_path(folder, name);
    auto st = host.stat(candidate);
    if (!st) {
      if (st.error().code != ENOENT && st.error().code != ENOTDIR && out.problem.empty()) {
        out.problem = candidate + ": " + unreadable_reason(st.error(), host);
      }
      continue;
    }
    // execvp needs the execute permission; any of the three bits will do for the check here.
    if (st->kind == FileKind::regular && (st->mode & 0111) != 0) {
      out.found = std::move(candidate);
      return out;
    }
  }
  return out;
}

}  // namespace gd
