// A bare literal is not a fact name: it must go through the check ("..."_fact).
// expect: deleted
#include "core/fact_set.hpp"

namespace gd {
bool loaded(const FactSet& facts) { return facts.get_bool("kmod.nvidia.loaded") == true; }
}  // namespace gd
