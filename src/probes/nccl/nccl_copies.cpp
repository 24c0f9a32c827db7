#include "probes/nccl/nccl_copies.hpp"

#include <cerrno>
#include <set>

#include "core/fact_key.hpp"
#include "probes/nccl/nccl_version_marker.hpp"
#include "probes/nccl/nccl_version_text.hpp"
#include "probes/probe.hpp"
#include "probes/shared/library_file.hpp"

namespace gd {
namespace {

constexpr std::string_view k_wheel_prefix = "nvidia-nccl-cu";             // nvidia-nccl-cu12, nvidia-nccl-cu13
constexpr std::string_view k_wheel_library = "/nvidia/nccl/lib/libnccl.so.2";  // below the site folder
constexpr std::size_t k_max_metadata_header = 64 * 1024;  // the header is ~1 KiB; the description follows it
constexpr std::size_t k_max_torch_lib_names = 16;          // libnccl* names taken from torch/lib

/// The version of a copy from its real file's name, else from the string NCCL compiles in.
/// The list when present, else empty.
std::vector<std::string> present_list(const FactSet& facts, FactName name) {
  const Fact* fact = facts.find(name);
  if (!fact || fact->state != FactState::present) return {};
  if (auto* list = std::get_if<std::vector<std::string>>(&fact->value)) return *list;
  return {};
}

void settle_version_from_file(Host& host, NcclCopy& copy) {
  if (auto version = version_from_nccl_file_name(base_name(copy.real_path))) {
    copy.version = *version;
    return;
  }
  auto marker = read_nccl_version_marker(host, copy.real_path);
  if (marker) {
    copy.version = *marker;
  } else {
    copy.why_unknown = copy.real_path + ": " + marker.error();
  }
}

void add_wheel(Host& host, const DistLine& dist, std::vector<NcclCopy>& copies) {
  NcclCopy copy;
  copy.origin = NcclOrigin::wheel;
  copy.origin_text = dist.name + " wheel";
  copy.path = dist.folder + std::string(k_wheel_library);
  copy.real_path = canonical_path(host, copy.path);
  auto st = host.stat(copy.path);
  if (!st || st->kind != FileKind::regular) {
    // The wheel's metadata is there but not its library: a broken install (torch's import of
    // libnccl.so.2 fails), or a capture made before gpudoctor read it. Listed, version unknown.
    copy.why_unknown = copy.path + ": " +
                       (!st ? (st.error().code == ENOENT ? std::string("no such file, though the wheel's dist-info is there")
                                                         : unreadable_reason(st.error(), host))
                            : "not a regular file");
    copies.push_back(std::move(copy));
    return;
  }
  const std::string metadata = dist.folder + "/" + dist_info_folder(dist.name, dist.version) + "/METADATA";
  auto text = host.read_file(metadata, k_max_metadata_header);
  if (!text) {
    copy.why_unknown = metadata + ": " + unreadable_reason(text.error(), host);
  } else if (auto version = metadata_version(*text)) {
    copy.version = *version;
  } else {
    copy.why_unknown = metadata + ": no Version field that is a release";
  }
  copies.push_back(std::move(copy));
}

void add_torch_copies(Host& host, const std::string& torch_path, std::vector<NcclCopy>& copies) {
  const std::string lib = torch_path + "/lib";
  auto names = host.list_dir(lib);
  if (!names) return;
  std::set<std::string> seen;
  std::size_t taken = 0;
  for (const std::string& name : *names) {
    if (!name.starts_with("libnccl") || name.find(".so") == std::string::npos) continue;
    if (++taken > k_max_torch_lib_names) break;
    NcclCopy copy;
    copy.origin = NcclOrigin::torch_copy;
    copy.origin_text = "torch's own copy";
    copy.path = lib + "/" + name;
    copy.real_path = canonical_path(host, copy.path);
    auto st = host.stat(copy.real_path);
    if (!st || st->kind != FileKind::regular || !seen.insert(copy.real_path).second) continue;
    settle_version_from_file(host, copy);
    copies.push_back(std::move(copy));
  }
}

std::string via_text(std::string_view via) {
  if (via == "default") return "system (the loader's default folders)";
  return "system (" + std::string(via) + ")";
}

}  // namespace

std::string copy_text(const NcclCopy& copy) {
  if (copy.version.empty()) return "unknown " + copy.origin_text + " " + copy.path + " (" + copy.why_unknown + ")";
  return copy.version + " " + copy.origin_text + " " + copy.path;
}

std::optional<DistLine> parse_dist_line(std::string_view line) {
  std::size_t space = line.find(' ');
  std::size_t open = line.find(" (");
  if (space == std::string_view::npos || open == std::string_view::npos || !line.ends_with(")") || open < space) {
    return std::nullopt;
  }
  DistLine dist;
  dist.name = std::string(line.substr(0, space));
  dist.version = std::string(line.substr(space + 1, open - space - 1));
  dist.folder = std::string(line.substr(open + 2, line.size() - open - 3));
  if (dist.name.empty() || dist.folder.empty()) return std::nullopt;
  return dist;
}

std::string dist_info_folder(std::string_view name, std::string_view version) {
  std::string folder(name);
  for (char& c : folder) {
    if (c == '-' || c == '.') c = '_';
  }
  return folder + "-" + std::string(version) + ".dist-info";
}

CopiesFound find_nccl_copies(Host& host, const FactSet& facts) {
  CopiesFound found;
  // The wheel, through the python layer's list of what the default interpreter imports.
  if (const Fact* dists = facts.find("py.dists"_fact); dists && dists->state == FactState::unknown) {
    found.incomplete = "py.dists: " + dists->reason;
  }
  for (const std::string& line : present_list(facts, "py.dists"_fact)) {
    if (!line.starts_with(k_wheel_prefix)) continue;
    if (auto dist = parse_dist_line(line)) add_wheel(host, *dist, found.copies);
  }
  if (auto torch = facts.get_string("torch.path"_fact)) add_torch_copies(host, *torch, found.copies);

  // The loader's libnccl.so.2, unless it is one of the copies above (LD_LIBRARY_PATH naming the
  // wheel's folder).
  const Fact* resolved = facts.find("lib.libnccl.resolved"_fact);
  if (resolved && resolved->state == FactState::unknown && found.incomplete.empty()) {
    found.incomplete = "lib.libnccl.resolved: " + resolved->reason;
  }
  auto path = facts.get_string("lib.libnccl.resolved"_fact);
  auto real = facts.get_string("lib.libnccl.resolved_real"_fact);
  if (path && real) {
    bool known = false;
    for (const NcclCopy& copy : found.copies) known = known || copy.real_path == *real;
    if (!known) {
      NcclCopy copy;
      copy.origin = NcclOrigin::system;
      copy.origin_text = via_text(facts.get_string("lib.libnccl.resolved_via"_fact).value_or("ld.so.cache"));
      copy.path = *path;
      copy.real_path = *real;
      settle_version_from_file(host, copy);
      found.copies.push_back(std::move(copy));
    }
  }
  return found;
}

LoadedChoice choose_loaded_copy(const std::vector<NcclCopy>& copies, const LoadContext& context) {
  LoadedChoice choice;
  auto first = [&](NcclOrigin origin) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < copies.size(); ++i) {
      if (copies[i].origin == origin) return i;
    }
    return std::nullopt;
  };
  auto system = first(NcclOrigin::system);
  if (context.torch_installed == true) {
    if (context.torch_cpu_only) {
      choice.absent_reason = "torch is a CPU-only build: it loads no NCCL";
      return choice;
    }
    if (auto own = first(NcclOrigin::torch_copy)) {
      choice.index = own;  // next to libtorch_cuda.so: its $ORIGIN finds it first
      return choice;
    }
    if (auto wheel = first(NcclOrigin::wheel)) {
      if (system && context.resolved_via == "LD_PRELOAD") {
        choice.index = system;  // an object already mapped answers to its soname
      } else if (system && context.resolved_via == "LD_LIBRARY_PATH") {
        choice.unknown_reason = copies[*system].path +
                                " on LD_LIBRARY_PATH comes before the wheel's copy if torch's libraries carry a RUNPATH, "
                                "after it if they carry an RPATH";
      } else {
        choice.index = wheel;
      }
      return choice;
    }
    choice.unknown_reason = copies.empty() ? "torch has no NCCL copy of its own and no nvidia-nccl wheel: it may link NCCL "
                                             "statically (older wheels) or not use it"
                                           : "torch has no NCCL copy of its own and no nvidia-nccl wheel: whether it loads "
                                             "the system's libnccl.so.2 depends on how it was built";
    return choice;
  }
  if (copies.empty()) {
    choice.absent_reason = "no libnccl found";
    return choice;
  }
  if (copies.size() == 1) {
    choice.index = 0;
    return choice;
  }
  choice.unknown_reason = context.torch_installed ? "several copies and no torch to tell which one a program loads"
                                                  : "several copies, and whether torch is installed is not known";
  return choice;
}

}  // namespace gd
