// The Python line: the environment a plain `python3` uses, with its torch and GPU code.
#include "probes/python/python_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/overview.hpp"
#include "probes/python/gpu_code_text.hpp"

namespace gd::areas {

AreaLine python_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto prefix = facts.get_string("py.default.prefix"_fact);
  if (!prefix) {
    const Fact* fact = facts.find("py.default.prefix"_fact);
    bool absent = fact && fact->state == FactState::absent;
    if (is_left_out(facts, "py.default.prefix"_fact)) {
      line.summary = unknown_reason(facts, "py.default.prefix"_fact);
      line.status = AreaStatus::skipped;
      return line;
    }
    line.summary = absent ? "no Python environment found" : "unknown: " + unknown_reason(facts, "py.default.prefix"_fact);
    for (const std::string& gap : list_of(facts, "py.not_checked"_fact)) line.details.push_back(gap);
    line.status = status_for(findings, layer, absent ? AreaStatus::skipped : AreaStatus::unknown);
    return line;
  }
  std::string kind = facts.get_string("py.default.kind"_fact).value_or("?");
  // A pre-flight says how the environment it checked was found (issue 23): on the image's PATH,
  // on the runtime's default PATH (an image without configuration), or by searching the image.
  if (facts.is_present("target.gpu"_fact)) {
    std::string via = facts.get_string("py.default.via"_fact).value_or("");
    if (via == "PATH") {
      kind += facts.is_present("target.image_config"_fact) ? ", on the image's PATH" : ", on the runtime's default PATH";
    } else if (!via.empty()) {
      kind += ", " + (via.starts_with("found by") ? via : "via " + via);
    }
  }
  std::string python = fmt::format("Python {} in {} ({})", facts.get_string("py.default.version"_fact).value_or("?"), *prefix, kind);
  std::vector<std::string> parts{python};
  if (auto torch = facts.get_string("torch.version"_fact)) {
    auto cuda = facts.get_string("torch.cuda"_fact);
    parts.push_back(fmt::format("torch {} ({})", *torch, cuda ? "CUDA " + *cuda : std::string("no CUDA")));
  } else if (facts.get_bool("torch.installed"_fact) == false) {
    parts.push_back("no torch");
  }
  line.summary = fmt::format("{}", fmt::join(parts, "; "));
  for (const std::string& gap : list_of(facts, "py.not_checked"_fact)) line.details.push_back(gap);
  auto sass = list_of(facts, "torch.sass"_fact);
  auto ptx = list_of(facts, "torch.ptx"_fact);
  if (!sass.empty() || !ptx.empty()) {
    std::string detail = fmt::format("torch GPU code: {}", fmt::join(sass, " "));
    if (!ptx.empty()) detail += fmt::format("; PTX {}", fmt::join(ptx, " "));
    if (auto coverage = gpu_code_text(facts, "torch.")) detail = "torch GPU code: " + *coverage;
    if (auto ms = facts.get_int("torch.fatbin_scan_ms"_fact)) detail += fmt::format(" (read in {} ms)", *ms);
    line.details.push_back(detail);
  } else if (facts.is_present("torch.cuda_library"_fact)) {
    line.details.push_back("torch GPU code: unknown: " + unknown_reason(facts, "torch.sass"_fact));
  }
  // The packages that matter beside torch on one line, the CUDA wheels counted on another: the
  // whole list is in -v and --json (py.dists, wheels.nvidia).
  std::vector<std::string> others;
  for (const std::string& dist : list_of(facts, "py.dists"_fact)) {
    std::string name_version = dist.substr(0, dist.find(" ("));
    if (name_version.starts_with("torch ") || name_version.starts_with("nvidia-") || name_version.starts_with("cuda-")) continue;
    others.push_back(name_version);
  }
  if (!others.empty()) line.details.push_back(fmt::format("with {}", fmt::join(others, ", ")));
  auto wheels = list_of(facts, "wheels.nvidia"_fact);
  if (!wheels.empty()) {
    line.details.push_back(fmt::format("{} nvidia-* CUDA wheels ({})", wheels.size(),
                                       fmt::join(list_of(facts, "wheels.cuda_families"_fact), ", ")));
  }
  for (int index = 0; index < 64; ++index) {
    std::string prefix = "ext." + std::to_string(index) + ".";
    auto ext = [&](FactField<"ext.*."> field) { return field.at(index); };
    auto path = facts.get_string(ext("path"));
    if (!path) break;
    auto sass = list_of(facts, ext("sass"));
    auto ptx = list_of(facts, ext("ptx"));
    std::string code = facts.is_present(ext("sass"))
                           ? fmt::format("{}{}", fmt::join(sass, " "), ptx.empty() ? "" : fmt::format("; PTX {}", fmt::join(ptx, " ")))
                           : "unknown: " + unknown_reason(facts, ext("sass"));
    if (auto coverage = gpu_code_text(facts, prefix); coverage && !coverage->empty()) code = *coverage;
    line.details.push_back(fmt::format("{}: {}", *path, code));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
