#include "fleet/fleet_facts.hpp"

#include <algorithm>
#include <map>

#include "core/all_layers.hpp"
#include "fleet/fact_layers.hpp"

namespace gd {
namespace {

std::string join(const std::vector<std::string>& items) {
  if (items.empty()) return std::string(k_empty_value);
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.' || name.find("..") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '*';
  });
}

}  // namespace

FleetFactSelection FleetFactSelection::curated() {
  FleetFactSelection selection;
  for (const Layer& layer : all_layers()) {
    for (std::string_view key : layer.fleet_facts) selection.add(key);
  }
  return selection;
}

std::optional<std::size_t> FleetFactSelection::add(std::string_view key, std::string* why) {
  if (auto known = find(key)) return known;
  FleetFactKey parsed{std::string(key), std::string(key), "", false};
  if (std::size_t open = key.find('['); open != std::string_view::npos) {
    // name[prefix*]: the items of a list that start with prefix.
    if (!key.ends_with("*]") || open + 2 > key.size() - 2) {
      if (why) *why = "'" + std::string(key) + "' is no fact name (a list's items are named list[prefix*])";
      return std::nullopt;
    }
    parsed.pattern = std::string(key.substr(0, open));
    parsed.item_prefix = std::string(key.substr(open + 1, key.size() - open - 3));
    parsed.item_filter = true;
  }
  if (!valid_name(parsed.pattern) || parsed.item_prefix.find_first_of("[]*") != std::string::npos) {
    if (why) *why = "'" + std::string(key) + "' is no fact name";
    return std::nullopt;
  }
  if (is_volatile_fact(parsed.pattern)) {
    if (why) *why = std::string(key) + " differs from node to node by nature (a name, id, timing or count): it is never compared";
    return std::nullopt;
  }
  if (parsed.per_gpu()) {
    std::string prefix = parsed.pattern.substr(0, parsed.pattern.find('*'));
    auto group = std::find_if(m_patterns.begin(), m_patterns.end(), [&](const PatternGroup& g) { return g.prefix == prefix; });
    if (group == m_patterns.end()) group = m_patterns.insert(m_patterns.end(), PatternGroup{prefix, {}});
    group->keys.push_back(m_keys.size());
  } else {
    m_plain.insert(parsed.pattern);
  }
  m_keys.push_back(std::move(parsed));
  return m_keys.size() - 1;
}

std::optional<std::size_t> FleetFactSelection::find(std::string_view key) const {
  for (std::size_t i = 0; i < m_keys.size(); ++i) {
    if (m_keys[i].key == key) return i;
  }
  return std::nullopt;
}

bool FleetFactSelection::selects(std::string_view name) const {
  // Called for every fact of every report: the plain names are looked up by hash, a group's
  // literal prefix rules most names out for all its patterns at once.
  if (m_plain.find(name) != m_plain.end()) return true;
  for (const PatternGroup& group : m_patterns) {
    if (!name.starts_with(group.prefix)) continue;
    for (std::size_t i : group.keys) {
      if (fact_matches(m_keys[i].pattern, name)) return true;
    }
  }
  return false;
}

std::optional<std::string> fact_value_text(const FleetFactKey& key, const DigestFact& fact) {
  if (fact.state == "absent") return std::string(k_absent_value);
  if (fact.state != "present") return std::nullopt;  // unknown: the node could not read it
  if (!fact.is_list) return key.item_filter ? std::nullopt : std::optional<std::string>(fact.value);
  if (!key.item_filter) return join(fact.items);
  std::vector<std::string> kept;
  for (const std::string& item : fact.items) {
    if (item.starts_with(key.item_prefix)) kept.push_back(item);
  }
  return join(kept);
}

std::vector<std::optional<std::string>> FleetFactSelection::node_values(const std::vector<DigestFact>& facts) const {
  std::vector<std::optional<std::string>> out(m_keys.size());
  for (std::size_t i = 0; i < m_keys.size(); ++i) {
    const FleetFactKey& key = m_keys[i];
    if (!key.per_gpu()) {
      for (const DigestFact& fact : facts) {
        if (fact.name == key.pattern) {
          out[i] = fact_value_text(key, fact);
          break;
        }
      }
      continue;
    }
    // One value per GPU: the node's is its GPUs' distinct values with counts ("8x NVIDIA H200"),
    // whatever their ordinals (which differ by nature between nodes).
    std::map<std::string, int> counts;
    for (const DigestFact& fact : facts) {
      if (!fact_matches(key.pattern, fact.name)) continue;
      if (auto text = fact_value_text(key, fact)) ++counts[*text];
    }
    if (counts.empty()) continue;
    std::string text;
    for (const auto& [value, n] : counts) text += (text.empty() ? "" : ", ") + std::to_string(n) + "x " + value;
    out[i] = std::move(text);
  }
  return out;
}

}  // namespace gd
