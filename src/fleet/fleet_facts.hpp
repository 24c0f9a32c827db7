#pragma once
// The configuration facts a fleet compares across its nodes to find the odd one out: each layer
// declares its own (the `fleet_facts` of its row in core/all_layers.hpp), a --reference file may
// name more. A key is a fact name, a pattern with `*` for one segment (a GPU's ordinal:
// "cuda.device.*.name"), or `list[prefix*]` (the items of a list fact that start with prefix:
// "wheels.nvidia[nvidia-nccl*]"). Each node's value of a key is one line of text, so that two
// nodes compare as text and a person reads it as it is. Pure.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace gd {

/// One fact of a report as the fleet reads it: only the facts some key selects are kept.
struct DigestFact {
  std::string name;
  std::string state;               ///< "present", "absent", "unknown" (as the report says)
  bool is_list = false;
  std::string value;               ///< a present scalar's value as text ("580.95.05", "8", "true")
  std::vector<std::string> items;  ///< a present list's items as text
};

struct FleetFactKey {
  std::string key;          ///< as written: the name in the output
  std::string pattern;      ///< the fact name, `*` for one segment
  std::string item_prefix;  ///< with `[prefix*]`: the list items kept
  bool item_filter = false;
  bool per_gpu() const { return pattern.find('*') != std::string::npos; }
};

/// What a node's value of a key is made of, when a report says so.
inline constexpr std::string_view k_absent_value = "(absent)";  ///< the fact is absent (a module not loaded)
inline constexpr std::string_view k_empty_value = "(none)";     ///< an empty list, or no item with the prefix

class FleetFactSelection {
 public:
  /// Every layer's `fleet_facts`, in the layers' order.
  static FleetFactSelection curated();

  /// The key's index, added when new; nullopt with `why` for a key that is malformed.
  std::optional<std::size_t> add(std::string_view key, std::string* why = nullptr);
  std::optional<std::size_t> find(std::string_view key) const;
  const std::vector<FleetFactKey>& keys() const { return m_keys; }

  /// Whether some key reads the report's fact `name`.
  bool selects(std::string_view name) const;

  /// A node's value of each key (in keys() order) from its report's facts; nullopt where the
  /// report does not say (no such fact, or it is unknown: the node could not read it, and its
  /// findings say why; that is no difference of configuration).
  std::vector<std::optional<std::string>> node_values(const std::vector<DigestFact>& facts) const;

 private:
  // For selects(), called for each of a report's ~500 facts: the plain names hashed, the patterns
  // grouped by their literal part before the `*` (few: "nvml.device.", "cuda.device.").
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const noexcept { return std::hash<std::string_view>{}(name); }
  };
  struct PatternGroup {
    std::string prefix;                ///< the literal part before the `*`
    std::vector<std::size_t> keys;     ///< the keys whose pattern starts so
  };
  std::vector<FleetFactKey> m_keys;
  std::unordered_set<std::string, NameHash, std::equal_to<>> m_plain;  ///< the patterns without `*`
  std::vector<PatternGroup> m_patterns;
};

/// One fact's value as a line of text; nullopt when unknown. `key` filters a list's items.
std::optional<std::string> fact_value_text(const FleetFactKey& key, const DigestFact& fact);

}  // namespace gd
