#include "probes/driver/kernel_module_files.hpp"

#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/shared/elf_modinfo.hpp"
#include "util/text_split.hpp"

namespace gd {
namespace {

// Where distributions and installers put nvidia.ko under /lib/modules/<release>/, in the order
// depmod prefers them ("search updates extra built-in weak-updates", depmod.d(5) and Fedora's
// /etc/depmod.d/dist.conf). `depth` bounds how many folder levels are walked below each.
struct SearchRoot {
  std::string_view folder;
  int depth;
};
constexpr SearchRoot k_search_roots[] = {
    {"updates", 3},               // DKMS (updates/dkms/nvidia.ko on Debian/Ubuntu), SUSE's updates/
    {"extra", 3},                 // Fedora akmods, RHEL kmod packages (extra/nvidia/nvidia.ko.xz)
    {"kernel/nvidia-*", 2},       // Ubuntu linux-modules-nvidia-<branch> (kernel/nvidia-550/nvidia.ko)
    {"kernel/drivers/video", 2},  // NVIDIA's .run installer (kernel/drivers/video/nvidia.ko)
    {"video", 1},                 // Gentoo x11-drivers/nvidia-drivers
    {"extramodules", 1},          // Arch Linux's nvidia package (older layouts)
    {"misc", 1},                  // out-of-tree modules built with "make modules_install"
    {"weak-updates", 3},          // RHEL kABI-compatible links to another kernel's module
};
constexpr std::size_t k_max_walk_entries = 4096;
constexpr std::size_t k_max_found = 16;
constexpr std::size_t k_max_modinfo_reads = 4;
constexpr std::size_t k_max_modules_dep = 8 * 1024 * 1024;
constexpr std::string_view k_dkms_root = "/var/lib/dkms";

bool looks_like_module_file(std::string_view name) { return name.find(".ko") != std::string_view::npos; }

void walk(Host& host, const std::string& dir, int depth, std::vector<std::string>& found, std::size_t& budget) {
  auto names = host.list_dir(dir);
  if (!names) {
    return;
  }
  for (const std::string& name : *names) {
    if (budget == 0 || found.size() >= k_max_found) {
      return;
    }
    --budget;
    std::string path = dir + "/" + name;
    if (nvidia_module_compression(name)) {
      found.push_back(path);
    } else if (depth > 0 && !looks_like_module_file(name)) {
      auto st = host.stat(path);
      if (st && st->kind == FileKind::directory) {
        walk(host, path, depth - 1, found, budget);
      }
    }
  }
}

bool is_version_name(std::string_view name) {
  if (name.empty() || name.front() < '0' || name.front() > '9') {
    return false;
  }
  for (char c : name) {
    if (c != '.' && (c < '0' || c > '9')) {
      return false;
    }
  }
  return true;
}

void record_dkms(Host& host, FactSet& facts) {
  const std::string source(k_dkms_root);
  auto modules = host.list_dir(k_dkms_root);
  if (!modules) {
    if (modules.error().code == ENOENT) {
      facts.set_absent("kmod.nvidia.dkms_modules"_fact, source, "DKMS is not installed");
    } else {
      facts.set_unknown("kmod.nvidia.dkms_modules"_fact, unreadable_reason(modules.error(), host), source);
    }
    return;
  }
  // /var/lib/dkms/<module>/<version>/ (dkms(8)); the open and proprietary packages name the
  // module "nvidia" or "nvidia-open".
  std::vector<std::string> out;
  for (const std::string& module : *modules) {
    if (module != "nvidia" && module != "nvidia-open" && module != "nvidia-srv") {
      continue;
    }
    auto versions = host.list_dir(source + "/" + module);
    if (!versions) {
      continue;
    }
    for (const std::string& version : *versions) {
      if (is_version_name(version) && out.size() < 16) {
        out.push_back(module + "/" + version);
      }
    }
  }
  facts.set("kmod.nvidia.dkms_modules"_fact, out, source);
}

void set_all_disk(FactSet& facts, const std::string& source, const std::string& note, bool unknown) {
  for (FactName fact : {"kmod.nvidia.disk_files"_fact, "kmod.nvidia.disk_path"_fact, "kmod.nvidia.disk_version"_fact,
                                "kmod.nvidia.disk_license"_fact, "kmod.nvidia.disk_flavor"_fact, "kmod.nvidia.disk_vermagic"_fact,
                                "kmod.nvidia.disk_signed"_fact, "kmod.nvidia.disk_version_matches"_fact}) {
    if (unknown) {
      facts.set_unknown(fact, note, source);
    } else {
      facts.set_absent(fact, source, note);
    }
  }
}

}  // namespace

std::optional<std::string> nvidia_module_compression(std::string_view name) {
  constexpr std::string_view k_base = "nvidia.ko";
  if (!name.starts_with(k_base)) {
    return std::nullopt;
  }
  std::string_view rest = name.substr(k_base.size());
  // Compressed by the distribution (CONFIG_MODULE_COMPRESS_XZ/ZSTD/GZIP; kmod reads them).
  if (rest.empty() || rest == ".xz" || rest == ".zst" || rest == ".gz") {
    return std::string(rest.empty() ? rest : rest.substr(1));
  }
  return std::nullopt;
}

std::vector<std::string> nvidia_modules_in_modules_dep(std::string_view text) {
  // depmod(8) modules.dep: "<path>: <dependency> ..." per module, paths relative to the
  // modules folder (absolute in old depmod versions).
  std::vector<std::string> out;
  for (std::string_view line : split_lines(text)) {
    if (out.size() >= k_max_found) {
      break;
    }
    std::string_view path = line.substr(0, line.find(':'));
    std::size_t slash = path.rfind('/');
    std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (line.find(':') != std::string_view::npos && nvidia_module_compression(name)) {
      out.emplace_back(path);
    }
  }
  return out;
}

std::vector<std::string> find_nvidia_module_files(Host& host, std::string_view release) {
  const std::string base = "/lib/modules/" + std::string(release);
  std::vector<std::string> found;
  std::size_t budget = k_max_walk_entries;
  for (const SearchRoot& root : k_search_roots) {
    if (root.folder == "kernel/nvidia-*") {
      auto names = host.list_dir(base + "/kernel");
      if (!names) {
        continue;
      }
      for (const std::string& name : *names) {
        if (name.starts_with("nvidia")) {
          walk(host, base + "/kernel/" + name, root.depth - 1, found, budget);
        }
      }
      continue;
    }
    walk(host, base + "/" + std::string(root.folder), root.depth - 1, found, budget);
  }
  return found;
}

void record_module_files(Host& host, FactSet& facts) {
  const std::string release = host.uname().release;
  const std::string base = "/lib/modules/" + release;
  std::optional<bool> loaded = facts.get_bool("kmod.nvidia.loaded"_fact);
  std::optional<std::string> loaded_version = facts.get_string("kmod.nvidia.version"_fact);
  record_dkms(host, facts);

  auto base_stat = host.stat(base);
  if (!base_stat || base_stat->kind != FileKind::directory) {
    bool missing = !base_stat && base_stat.error().code == ENOENT;
    std::string note =
        missing ? "no " + base + " (a container, or a system that keeps its modules elsewhere)"
                : base + ": " + (base_stat ? std::string("not a folder") : unreadable_reason(base_stat.error(), host));
    set_all_disk(facts, base, note, !missing);
    if (missing) {
      facts.set_absent("kmod.kernel_headers_installed"_fact, base, note);
    } else {
      facts.set_unknown("kmod.kernel_headers_installed"_fact, note, base);
    }
    if (loaded == true) {
      facts.set("kmod.nvidia.built_for_running_kernel"_fact, true, "/proc/driver/nvidia/version");
    } else if (missing) {
      facts.set_absent("kmod.nvidia.built_for_running_kernel"_fact, base, note);
    } else {
      facts.set_unknown("kmod.nvidia.built_for_running_kernel"_fact, note, base);
    }
    return;
  }

  // DKMS and distribution builds need the kernel headers (/lib/modules/<release>/build).
  auto build = host.stat(base + "/build");
  if (build) {
    facts.set("kmod.kernel_headers_installed"_fact, build->kind == FileKind::directory, base + "/build");
  } else if (build.error().code == ENOENT) {
    facts.set("kmod.kernel_headers_installed"_fact, false, base + "/build");
  } else {
    facts.set_unknown("kmod.kernel_headers_installed"_fact, unreadable_reason(build.error(), host), base + "/build");
  }

  std::vector<std::string> found = find_nvidia_module_files(host, release);
  if (found.empty()) {
    // Not in the usual folders: modules.dep lists every module modprobe can load.
    if (auto dep = host.read_file(base + "/modules.dep", k_max_modules_dep)) {
      for (const std::string& relative : nvidia_modules_in_modules_dep(*dep)) {
        found.push_back(relative.starts_with("/") ? relative : base + "/" + relative);
      }
    }
  }
  if (found.empty()) {
    set_all_disk(facts, base, "no nvidia.ko under " + base, false);
    facts.set("kmod.nvidia.built_for_running_kernel"_fact, loaded == true,
              loaded == true ? "/proc/driver/nvidia/version" : base);
    return;
  }

  std::vector<std::string> listed;
  std::optional<ModInfo> chosen_info;
  std::string chosen_error;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::string& path = found[i];
    std::string compression = nvidia_module_compression(path.substr(path.rfind('/') + 1)).value_or("");
    if (!compression.empty()) {
      listed.push_back(path + " (compressed ." + compression + ", not read)");
      if (i == 0) {
        chosen_error = "compressed (." + compression + "), not read";
      }
      continue;
    }
    if (i >= k_max_modinfo_reads) {
      listed.push_back(path);
      continue;
    }
    auto info = read_modinfo(host, path);
    if (info) {
      listed.push_back(path + " " + (info->version.empty() ? std::string("(no version)") : info->version));
      if (i == 0) {
        chosen_info = *info;
      }
    } else {
      listed.push_back(path + " (" + info.error() + ")");
      if (i == 0) {
        chosen_error = info.error();
      }
    }
  }
  const std::string& chosen = found.front();
  facts.set("kmod.nvidia.disk_files"_fact, listed, base);
  facts.set("kmod.nvidia.disk_path"_fact, chosen, base);

  if (!chosen_info) {
    for (FactName fact :
         {"kmod.nvidia.disk_version"_fact, "kmod.nvidia.disk_license"_fact, "kmod.nvidia.disk_flavor"_fact,
          "kmod.nvidia.disk_vermagic"_fact, "kmod.nvidia.disk_signed"_fact, "kmod.nvidia.disk_version_matches"_fact}) {
      facts.set_unknown(fact, chosen_error, chosen);
    }
    facts.set("kmod.nvidia.built_for_running_kernel"_fact, true, chosen);
    return;
  }
  const ModInfo& info = *chosen_info;
  auto set_text = [&](FactName fact, const std::string& value, std::string_view what) {
    if (value.empty()) {
      facts.set_absent(fact, chosen, "no " + std::string(what) + "= in .modinfo");
    } else {
      facts.set(fact, value, chosen);
    }
  };
  set_text("kmod.nvidia.disk_version"_fact, info.version, "version");
  set_text("kmod.nvidia.disk_license"_fact, info.license, "license");
  set_text("kmod.nvidia.disk_vermagic"_fact, info.vermagic, "vermagic");
  set_text("kmod.nvidia.disk_flavor"_fact, flavor_from_license(info.license), "known license");

  std::optional<bool> is_signed;
  if (auto st = host.stat(chosen)) {
    is_signed = has_module_signature(host, chosen, st->size);
  }
  if (is_signed) {
    facts.set("kmod.nvidia.disk_signed"_fact, *is_signed, chosen);
  } else {
    facts.set_unknown("kmod.nvidia.disk_signed"_fact, "could not read the end of the file", chosen);
  }

  if (loaded_version && !info.version.empty()) {
    facts.set("kmod.nvidia.disk_version_matches"_fact, *loaded_version == info.version, chosen);
  } else if (loaded == false) {
    facts.set_absent("kmod.nvidia.disk_version_matches"_fact, chosen, "no module is loaded");
  } else {
    facts.set_unknown("kmod.nvidia.disk_version_matches"_fact,
                      info.version.empty() ? "no version in .modinfo" : "the loaded version is unknown", chosen);
  }

  // A file for this release exists. Its vermagic may name another release (RHEL weak-updates
  // links): with CONFIG_MODVERSIONS the kernel skips the release word when it compares vermagic
  // (kernel/module/version.c same_magic()), so that alone does not make it unloadable.
  facts.set("kmod.nvidia.built_for_running_kernel"_fact, true, loaded == true ? "/proc/driver/nvidia/version" : chosen);
}

}  // namespace gd
