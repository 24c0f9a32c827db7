// A misspelt pattern stops the build.
// expect: fact_pattern_is_not_in_the_catalogue
#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace gd {
bool first(const FactSet& facts) { return facts.is_present("pci.gpu.*.bus"_pattern.at(0)); }
}  // namespace gd
