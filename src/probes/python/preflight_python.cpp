#include "probes/python/preflight_python.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>
#include "core/fact_key.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_not_checked_listed = 5;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string where(const PythonEnv& env) {
  return env.interpreter.empty() ? env.site_dirs.front() : env.prefix + " (" + env.kind + ")";
}

}  // namespace

void preflight_python(Host& host, const ProbeOptions& options, PythonDiscovery& found, FactSet& facts) {
  const std::string source = "pre-flight: search of /opt, /usr/local, /root, /home, /workspace";
  const bool configured = !options.target->image_config.empty();
  const std::string path_name = configured ? "the image's PATH" : "the runtime's default PATH (no image configuration given)";
  const std::string config_hint = configured ? "" : ", or --image-config FILE (docker inspect IMAGE) for the image's PATH";
  std::vector<std::string> not_checked;
  if (!options.python_path.empty() && !found.chosen) {
    not_checked.push_back("--python " + options.python_path + ": no such interpreter or environment folder in the image");
  }
  ImageSearch search = search_image_python(host, found.envs);
  std::vector<PythonEnv> candidates = found.envs;
  candidates.insert(candidates.end(), search.envs.begin(), search.envs.end());
  candidates.insert(candidates.end(), search.bare_sites.begin(), search.bare_sites.end());
  std::vector<std::vector<std::string>> packages;
  for (const PythonEnv& env : candidates) packages.push_back(ml_packages(host, env.site_dirs));
  auto has = [&](std::size_t i, bool torch) {
    return torch ? std::any_of(packages[i].begin(), packages[i].end(), [](const std::string& p) { return p.starts_with("torch"); })
                 : !packages[i].empty();
  };
  std::optional<std::size_t> checked;
  if (found.chosen) checked = 0;  // found.envs starts with the chosen one
  if (options.python_path.empty() && !(checked && has(*checked, false))) {
    for (bool torch : {true, false}) {
      for (std::size_t i = 0; i < candidates.size() && !(checked && has(*checked, false)); ++i) {
        if (has(i, torch)) checked = i;
      }
    }
  }
  if (checked) {
    const PythonEnv& env = candidates[*checked];
    if (env.found_via.starts_with("found by searching")) {
      if (env.interpreter.empty()) {
        not_checked.push_back(env.site_dirs.front() + " holds " + joined(packages[*checked]) +
                              " and was checked, but no Python interpreter of the image was found that imports it: "
                              "give --python PATH, the interpreter inside the image that runs it");
      } else {
        not_checked.push_back(env.prefix + " (" + env.kind + ", " + env.found_via + ") holds " + joined(packages[*checked]) +
                              " and was checked, but is not on " + path_name + ": give --python " + env.interpreter +
                              " if the image runs it" + config_hint);
      }
    }
  } else if (!search.bare_sites.empty()) {
    not_checked.push_back("no Python interpreter found on " + path_name + ", but " + search.bare_sites.front().site_dirs.front() +
                          " exists: give --python PATH (an interpreter inside the image)" + config_hint);
  }
  std::vector<std::string> others;
  std::size_t more = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if ((checked && i == *checked) || !has(i, false)) continue;
    if (others.size() == k_max_not_checked_listed) {
      ++more;
      continue;
    }
    const PythonEnv& env = candidates[i];
    others.push_back(where(env) + " holds " + joined(packages[i]) + " (" +
                     (env.found_via == "PATH" ? "on " + path_name : env.found_via) + "), not checked: give --python " +
                     (env.interpreter.empty() ? std::string("PATH (an interpreter inside the image that imports it)")
                                              : env.interpreter) +
                     " to check it");
  }
  not_checked.insert(not_checked.end(), others.begin(), others.end());
  if (more > 0) not_checked.push_back(std::to_string(more) + " more environments with ML packages, not checked");
  if (search.truncated) {
    not_checked.push_back("the search for Python environments stopped at its limit (" + std::to_string(search.dirs_listed) +
                          " folders listed): give --python PATH for one it did not reach");
  }
  facts.set("py.not_checked"_fact, not_checked, source);
  // The checked environment first, then every other one found, as py.envs lists them.
  found.envs.clear();
  found.chosen.reset();
  if (checked) {
    found.chosen = candidates[*checked];
    found.envs.push_back(candidates[*checked]);
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!checked || i != *checked) found.envs.push_back(candidates[i]);
  }
}


}  // namespace gd
