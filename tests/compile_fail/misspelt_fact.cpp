// A misspelt fact name stops the build.
// expect: fact_name_is_not_in_the_catalogue
#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace gd {
bool loaded(const FactSet& facts) { return facts.get_bool("kmod.nvidia.laoded"_fact) == true; }
}  // namespace gd
