// Overview lines for the ML stack: the Python environment a plain `python3` uses with its torch,
// and the CUDA toolkit an extension build would use.

#include <fmt/format.h>

#include "report/areas/area_support.hpp"
#include "report/areas/gpu_code_text.hpp"

namespace gd::areas {

AreaLine python_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto prefix = facts.get_string("py.default.prefix");
  if (!prefix) {
    const Fact* fact = facts.find("py.default.prefix");
    bool absent = fact && fact->state == FactState::absent;
    if (is_left_out(facts, "py.default.prefix")) {
      line.summary = unknown_reason(facts, "py.default.prefix");
      line.status = AreaStatus::skipped;
      return line;
    }
    line.summary = absent ? "no Python environment found" : "unknown: " + unknown_reason(facts, "py.default.prefix");
    for (const std::string& gap : list_of(facts, "py.not_checked")) line.details.push_back(gap);
    line.status = status_for(findings, layer, absent ? AreaStatus::skipped : AreaStatus::unknown);
    return line;
  }
  std::string kind = facts.get_string("py.default.kind").value_or("?");
  // A pre-flight says how the environment it checked was found (issue 23): on the image's PATH,
  // on the runtime's default PATH (an image without configuration), or by searching the image.
  if (facts.is_present("target.gpu")) {
    std::string via = facts.get_string("py.default.via").value_or("");
    if (via == "PATH") {
      kind += facts.is_present("target.image_config") ? ", on the image's PATH" : ", on the runtime's default PATH";
    } else if (!via.empty()) {
      kind += ", " + (via.starts_with("found by") ? via : "via " + via);
    }
  }
  std::string python = fmt::format("Python {} in {} ({})", facts.get_string("py.default.version").value_or("?"), *prefix, kind);
  std::vector<std::string> parts{python};
  if (auto torch = facts.get_string("torch.version")) {
    auto cuda = facts.get_string("torch.cuda");
    parts.push_back(fmt::format("torch {} ({})", *torch, cuda ? "CUDA " + *cuda : std::string("no CUDA")));
  } else if (facts.get_bool("torch.installed") == false) {
    parts.push_back("no torch");
  }
  line.summary = fmt::format("{}", fmt::join(parts, "; "));
  for (const std::string& gap : list_of(facts, "py.not_checked")) line.details.push_back(gap);
  auto sass = list_of(facts, "torch.sass");
  auto ptx = list_of(facts, "torch.ptx");
  if (!sass.empty() || !ptx.empty()) {
    std::string detail = fmt::format("torch GPU code: {}", fmt::join(sass, " "));
    if (!ptx.empty()) detail += fmt::format("; PTX {}", fmt::join(ptx, " "));
    if (auto coverage = gpu_code_text(facts, "torch.")) detail = "torch GPU code: " + *coverage;
    if (auto ms = facts.get_int("torch.fatbin_scan_ms")) detail += fmt::format(" (read in {} ms)", *ms);
    line.details.push_back(detail);
  } else if (facts.is_present("torch.cuda_library")) {
    line.details.push_back("torch GPU code: unknown: " + unknown_reason(facts, "torch.sass"));
  }
  // The packages that matter beside torch on one line, the CUDA wheels counted on another: the
  // whole list is in -v and --json (py.dists, wheels.nvidia).
  std::vector<std::string> others;
  for (const std::string& dist : list_of(facts, "py.dists")) {
    std::string name_version = dist.substr(0, dist.find(" ("));
    if (name_version.starts_with("torch ") || name_version.starts_with("nvidia-") || name_version.starts_with("cuda-")) continue;
    others.push_back(name_version);
  }
  if (!others.empty()) line.details.push_back(fmt::format("with {}", fmt::join(others, ", ")));
  auto wheels = list_of(facts, "wheels.nvidia");
  if (!wheels.empty()) {
    line.details.push_back(fmt::format("{} nvidia-* CUDA wheels ({})", wheels.size(),
                                       fmt::join(list_of(facts, "wheels.cuda_families"), ", ")));
  }
  for (int index = 0; index < 64; ++index) {
    std::string prefix = "ext." + std::to_string(index) + ".";
    auto path = facts.get_string(prefix + "path");
    if (!path) break;
    auto sass = list_of(facts, prefix + "sass");
    auto ptx = list_of(facts, prefix + "ptx");
    std::string code = facts.is_present(prefix + "sass")
                           ? fmt::format("{}{}", fmt::join(sass, " "), ptx.empty() ? "" : fmt::format("; PTX {}", fmt::join(ptx, " ")))
                           : "unknown: " + unknown_reason(facts, prefix + "sass");
    if (auto coverage = gpu_code_text(facts, prefix); coverage && !coverage->empty()) code = *coverage;
    line.details.push_back(fmt::format("{}: {}", *path, code));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

AreaLine toolkit_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto path = facts.get_string("toolkit.build.path");
  if (!path) {
    const Fact* fact = facts.find("toolkit.build.path");
    bool absent = fact && fact->state == FactState::absent;
    if (is_left_out(facts, "toolkit.build.path")) {
      line.summary = unknown_reason(facts, "toolkit.build.path");
      line.status = AreaStatus::skipped;
      return line;
    }
    line.summary = absent ? "none found (only needed to build CUDA code)" : "unknown: " + unknown_reason(facts, "toolkit.build.path");
    line.status = status_for(findings, layer, absent ? AreaStatus::skipped : AreaStatus::unknown);
    return line;
  }
  auto version = facts.get_string("toolkit.build.version");
  line.summary = fmt::format("CUDA {} at {} (via {})", version.value_or("version unknown"), *path,
                             facts.get_string("toolkit.build.via").value_or("?"));
  if (auto compiler = facts.get_string("toolkit.build.host_compiler")) line.summary += ", host compiler " + *compiler;
  auto all = list_of(facts, "toolkit.list");
  if (all.size() > 1) line.details = all;
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
