#include "util/packaging/installed_requirements.hpp"

#include <utility>

#include "util/packaging/name.hpp"

namespace gd {

std::string requirement_text(const Requirement& requirement) {
  std::string text = normalize_name(requirement.name);
  if (!requirement.extras.empty()) {
    text += "[";
    for (std::size_t i = 0; i < requirement.extras.size(); ++i) text += (i ? "," : "") + requirement.extras[i];
    text += "]";
  }
  for (std::size_t i = 0; i < requirement.specifiers.size(); ++i) text += (i ? "," : "") + requirement.specifiers[i].text();
  return text;
}

std::vector<Requirement> applicable_requirements(const std::vector<std::string>& requires_dist, const MarkerEnv& env,
                                                 const std::vector<std::string>& extras) {
  std::vector<Requirement> out;
  for (const std::string& line : requires_dist) {
    auto requirement = parse_requirement(line);
    if (!requirement) continue;
    if (requirement->marker) {
      MarkerEnv with_extras = env;
      with_extras.extras = extras;
      if (marker_applies(*requirement->marker, with_extras) != true) continue;  // unknown: not counted
    }
    requirement->name = normalize_name(requirement->name);
    out.push_back(std::move(*requirement));
  }
  return out;
}

namespace {

void check(const Requirement& requirement, const MarkerEnv& env, const InstalledLookup& installed,
           const std::function<bool(std::string_view)>& follow, std::vector<std::string>& unmet, int depth) {
  std::optional<std::string> version = installed.version(requirement.name);
  std::string text = requirement_text(requirement);
  if (!version) {
    unmet.push_back(text + " (not installed)");
    return;
  }
  if (specifiers_allow(requirement.specifiers, *version) == false) {
    unmet.push_back(text + " (installed " + *version + ")");
    return;
  }
  if (depth == 0 && !requirement.extras.empty()) {
    if (auto nested = installed.requires_dist(requirement.name)) {
      for (const Requirement& inner : applicable_requirements(*nested, env, requirement.extras)) {
        if (follow(inner.name)) check(inner, env, installed, follow, unmet, 1);
      }
    }
  }
}

}  // namespace

void collect_unmet_requirements(const Requirement& requirement, const MarkerEnv& env, const InstalledLookup& installed,
                                const std::function<bool(std::string_view name)>& follow,
                                std::vector<std::string>& unmet) {
  check(requirement, env, installed, follow, unmet, 0);
}

}  // namespace gd
