// The layer table (core/all_layers.hpp): every row has a kind, every catalogued fact is one
// layer's and that layer has a diff and fleet layer, and the rows' sections and prefixes agree.

#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/all_layers.hpp"
#include "fleet/fact_layers.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

// A row that leaves out its kind does not compile: aggregate initialization would build the
// Required<LayerKind> from `{}`, which it has no constructor for.
template <typename Row>
concept layer_row_without_kind = requires { Row{.id = "x", .title = "X", .fact_prefixes = {"x."}}; };
template <typename Row>
concept layer_row_with_kind = requires { Row{.id = "x", .title = "X", .kind = gd::LayerKind::host}; };
static_assert(!layer_row_without_kind<gd::Layer>, "a layer row without a kind must not compile");
static_assert(layer_row_with_kind<gd::Layer>);

bool in_diff_layers(std::string_view id) {
  for (const gd::DiffLayer& layer : gd::diff_layers()) {
    if (layer.id == id) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("layers: every row has an id, a title and one of the four kinds", "[layers]") {
  std::set<std::string_view> ids;
  for (const gd::Layer& layer : gd::all_layers()) {
    INFO(layer.id);
    CHECK_FALSE(layer.id.empty());
    CHECK_FALSE(layer.title.empty());
    CHECK(ids.insert(layer.id).second);
    gd::LayerKind kind = layer.kind;
    CHECK((kind == gd::LayerKind::host || kind == gd::LayerKind::image || kind == gd::LayerKind::environment ||
           kind == gd::LayerKind::cross_check));
    CHECK(gd::to_string(kind) != "?");
  }
}

TEST_CASE("layers: a cross-check owns nothing, every other layer owns facts", "[layers]") {
  for (const gd::Layer& layer : gd::all_layers()) {
    INFO(layer.id);
    if (layer.kind == gd::LayerKind::cross_check) {
      CHECK(layer.fact_prefixes.size() == 0);
      CHECK(layer.sections.size() == 0);
      CHECK(layer.areas.size() == 0);
      CHECK(layer.rule_folders.size() == 0);
    } else {
      CHECK(layer.fact_prefixes.size() > 0);
      CHECK(layer.sections.size() > 0);
    }
  }
}

TEST_CASE("layers: every catalogued fact is its section's layer's, which diff and fleet show", "[layers]") {
  std::set<std::string_view> names;
  std::size_t in_sections = 0;
  for (const gd::Layer& layer : gd::all_layers()) {
    for (gd::CatalogSection section : layer.sections) {
      for (const gd::FactSpec& spec : section()) {
        INFO(layer.id << ": " << spec.name);
        ++in_sections;
        CHECK(names.insert(spec.name).second);  // one section, one layer per fact
        // The prefixes say the same as the sections: a fact filed under a layer that does not
        // claim its prefix would be shown in a diff under another layer, or under "other".
        CHECK(gd::layer_of_fact(spec.name) == &layer);
      }
    }
    if (layer.sections.size() > 0) {
      INFO(layer.id);
      CHECK(in_diff_layers(layer.id));
    }
  }
  CHECK(in_sections == gd::fact_catalog().size());
  for (const gd::FactSpec& spec : gd::fact_catalog()) {
    INFO(spec.name);
    const gd::Layer* layer = gd::layer_of_fact(spec.name);
    REQUIRE(layer != nullptr);
    CHECK(in_diff_layers(layer->id));
    CHECK(gd::diff_layers()[gd::diff_layer_of(spec.name)].id == layer->id);
  }
}

TEST_CASE("layers: the longest prefix decides, whatever the rows' order", "[layers]") {
  CHECK(gd::layer_of_fact("env.nvidia_visible_devices")->id == "container");
  CHECK(gd::layer_of_fact("env.ld_preload")->id == "environment");
  CHECK(gd::layer_of_fact("klog.xid_codes")->id == "kernel-log");
  CHECK(gd::layer_of_fact("service.persistenced.running")->id == "libraries");
  CHECK(gd::layer_of_fact("future.fact") == nullptr);
}

TEST_CASE("layers: each area and rules/ folder is one layer's", "[layers]") {
  std::set<std::string_view> areas;
  std::set<std::string_view> folders;
  for (const gd::Layer& layer : gd::all_layers()) {
    for (std::string_view area : layer.areas) {
      INFO(area);
      CHECK(areas.insert(area).second);
      CHECK(gd::layer_of_area(area) == &layer);
    }
    for (const gd::RuleFolder& folder : layer.rule_folders) {
      INFO(folder.folder);
      CHECK(folders.insert(folder.folder).second);
    }
  }
  CHECK(gd::layer_of_area("kernel-log")->id == "kernel-log");
  CHECK(gd::layer_of_area("klog") == nullptr);  // the folder's spelling is not an area
}

}  // namespace GD_UNITY_ID
