#include "probes/target/image_config.hpp"

#include <nlohmann/json.hpp>

#include "sys/env_allowlist.hpp"

namespace gd {
namespace {

using nlohmann::json;

// The Env array of whichever of the three layouts `j` is; nullptr when none.
const json* env_array(const json& j) {
  const json* root = &j;
  if (root->is_array()) {  // docker inspect prints a list of one
    if (root->size() != 1) return nullptr;
    root = &(*root)[0];
  }
  if (!root->is_object()) return nullptr;
  for (auto [outer, inner] : {std::pair{"config", "Env"}, std::pair{"Config", "Env"}, std::pair{"process", "env"}}) {
    auto it = root->find(outer);
    if (it == root->end() || !it->is_object()) continue;
    auto env = it->find(inner);
    if (env != it->end()) return &*env;
    return nullptr;  // the layout is known, it sets no variables
  }
  return nullptr;
}

bool names_a_layout(const json& j) {
  const json* root = j.is_array() && j.size() == 1 ? &j[0] : &j;
  return root->is_object() && (root->contains("config") || root->contains("Config") || root->contains("process"));
}

}  // namespace

std::expected<std::map<std::string, std::string>, std::string> parse_image_config(std::string_view text,
                                                                                  std::string_view file) {
  const std::string where(file);
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::unexpected(where + ": not valid JSON (an OCI image or runtime configuration was expected)");
  if (!names_a_layout(j)) {
    return std::unexpected(where + ": not an image configuration (no \"config\", \"Config\" or \"process\" object)");
  }
  std::map<std::string, std::string> out;
  const json* env = env_array(j);
  if (env == nullptr) return out;  // an image without variables
  if (!env->is_array()) return std::unexpected(where + ": the Env entry is not a list of NAME=value strings");
  for (std::size_t i = 0; i < env->size(); ++i) {
    const json& entry = (*env)[i];
    if (!entry.is_string()) return std::unexpected(where + ": Env[" + std::to_string(i) + "] is not a string");
    const std::string& text_entry = entry.get_ref<const std::string&>();
    auto eq = text_entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return std::unexpected(where + ": Env[" + std::to_string(i) + "] is not NAME=value");
    }
    std::string name = text_entry.substr(0, eq);
    if (env_name_allowed(name)) out[name] = text_entry.substr(eq + 1);
  }
  return out;
}

}  // namespace gd
