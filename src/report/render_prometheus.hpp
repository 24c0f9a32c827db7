#pragma once
// --format prometheus: the report as Prometheus metrics (text exposition format 0.0.4), for
// node_exporter's textfile collector (--textfile). The families, their labels and the meaning
// of their values are a versioned contract (README "Prometheus metrics"): names and label sets
// never change, families are only added. A value gpudoctor could not tell is NaN.

#include <span>
#include <string>
#include <string_view>

#include "report/report.hpp"

namespace gd {

/// One exported family: what README's table documents (a test compares the two).
struct PromFamily {
  std::string_view name;    ///< gpudoctor_...
  std::string_view type;    ///< gauge (every family is: gpudoctor reads a snapshot)
  std::string_view labels;  ///< label names, comma-separated ("" for none)
  std::string_view help;
};

/// Every family, in the order they are written.
std::span<const PromFamily> prometheus_families();

/// The metrics of `report`; `finished_unix_s` is the wall-clock time the run ended (the caller
/// reads the clock, so the renderer stays pure).
std::string render_prometheus(const Report& report, double finished_unix_s);

}  // namespace gd
