// A misspelt field of a family (the per-GPU key lambdas) stops the build.
// expect: fact_field_is_not_in_the_catalogue
#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace gd {
bool named(const FactSet& facts) {
  auto key = [](FactField<"cuda.device.*."> field) { return field.at(0); };
  return facts.is_present(key("nmae"));
}
}  // namespace gd
