#pragma once
// A layer of the host, from the PCI slot up to the user's environment: the unit gpudoctor is
// built of. Each layer is one folder, probes/<layer>/ (its probe, parsers, catalogue section and
// overview line), and one row of core/all_layers.hpp, which says what every stage needs to know of
// it: its id and title (the overview line, the diff and fleet layer), its facts (prefixes and
// catalogue sections), its kind (what a pre-flight and --scope node do with it), the rule areas
// and rules/ folders that are its, and its overview line's builder.
//
// The row names what is at core's level: the catalogue section (constant data) and the overview
// builder's declaration are headers in the layer's folder that include only core/. The probe is
// above core (it reads the Host), so it names its row instead (probes/registry.cpp, checked by id
// when the table compiles); the dependencies still point one way (tests/e2e/test_layering.sh).

#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

#include "core/fact_catalog.hpp"
#include "core/finding.hpp"

namespace gd {

/// A field that a row must set: it has no default, so a row that leaves it out does not compile
/// (aggregate initialization copy-initializes a left-out field from `{}`).
template <typename T>
struct Required {
  T value;
  constexpr Required(T given) : value(given) {}  // implicit, so that a row reads `.kind = LayerKind::host`
  constexpr operator T() const { return value; }
};

enum class LayerKind {
  /// The machine's own (PCI, kernel module, device nodes, kernel log): a pre-flight of an image does
  /// not read it (the image has none) but sets its facts unknown and takes the target's.
  host,
  /// Read wherever the run looks: the host, or the image in a pre-flight (--root IMAGE).
  image,
  /// The invoking user's choice (Python environment, toolkit): --scope node does not read it and
  /// sets its facts unknown.
  environment,
  /// Compares other layers through their facts; owns no facts, rule areas or overview line.
  cross_check,
};

std::string_view to_string(LayerKind kind);

/// A catalogue section: a constant table in the layer's folder (probes/<layer>/<x>_facts.hpp).
using CatalogSection = std::span<const FactSpec> (*)();

class FactSet;
struct AreaLine;
struct Layer;
/// A layer's overview line builder (probes/<layer>/<layer>_overview.cpp; core/overview.hpp).
using OverviewBuilder = AreaLine (*)(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings);

/// A rules/ folder (the first segment of its rules' ids) and the scope and action its rules have
/// when their file leaves them out (rules/defaults.cpp).
struct RuleFolder {
  std::string_view folder;
  Scope scope;
  Action action;
};

struct Layer {
  std::string_view id;     ///< the one spelling: the overview line's id, the diff and fleet layer's id
  std::string_view title;  ///< the overview line's and the diff's title
  Required<LayerKind> kind;
  /// Fact name prefixes: a fact is the layer's whose longest matching prefix is here.
  std::initializer_list<std::string_view> fact_prefixes = {};
  std::initializer_list<CatalogSection> sections = {};  ///< its part of the fact catalogue
  /// The finding areas (a rule's `area`) its overview line answers for; a rule naming any other
  /// area does not load.
  std::initializer_list<std::string_view> areas = {};
  std::initializer_list<RuleFolder> rule_folders = {};
  /// Its overview line; none for a layer whose facts are context (system) or judgements of
  /// other layers (cross-checks). A layer with rule areas has one (tests/unit/core/test_all_layers.cpp).
  OverviewBuilder overview = nullptr;
  /// The configuration facts `gpudoctor fleet` compares across nodes to find the odd one out
  /// (fleet/fleet_facts.hpp): what should be the same on every node of a fleet (versions, modes,
  /// counts), never what differs by nature (names, UUIDs, timings, process counts, bus ids:
  /// tests/unit/fleet/test_fleet_facts.cpp checks none is volatile). `*` stands for one segment
  /// (a GPU's ordinal: the node's value is its GPUs' distinct values with counts, "8x NVIDIA H200");
  /// `name[prefix*]` keeps the items of a list fact that start with prefix (one wheel of many).
  std::initializer_list<std::string_view> fleet_facts = {};
};

/// The layer whose longest prefix `fact` starts with; nullptr for a name no layer claims (a
/// newer version's fact in a report this one reads).
const Layer* layer_of_fact(std::string_view fact);

/// The layer that answers for finding area `area`; nullptr when none does.
const Layer* layer_of_area(std::string_view area);

/// Every layer's areas, in the layers' order (for messages).
std::vector<std::string_view> layer_areas();

}  // namespace gd
