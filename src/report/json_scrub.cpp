#include "report/json_scrub.hpp"

#include <vector>

#include "util/secret_scrub.hpp"

namespace gd {

void scrub_json_secrets(nlohmann::json& document) {
  std::vector<nlohmann::json*> pending{&document};
  while (!pending.empty()) {
    nlohmann::json* node = pending.back();
    pending.pop_back();
    if (node->is_string()) {
      std::string& text = node->get_ref<std::string&>();
      text = scrub_known_secrets(text);
    } else if (node->is_array()) {
      for (nlohmann::json& item : *node) pending.push_back(&item);
    } else if (node->is_object()) {
      bool keys_change = false;
      for (auto it = node->begin(); it != node->end() && !keys_change; ++it) {
        keys_change = scrub_known_secrets(it.key()) != it.key();
      }
      if (keys_change) {  // keys cannot be renamed in place: the object is built again
        nlohmann::json renamed = nlohmann::json::object();
        for (auto it = node->begin(); it != node->end(); ++it) renamed[scrub_known_secrets(it.key())] = std::move(it.value());
        *node = std::move(renamed);
      }
      for (auto it = node->begin(); it != node->end(); ++it) pending.push_back(&it.value());
    }
  }
}

}  // namespace gd
