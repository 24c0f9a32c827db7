// The control: checked names spelt right compile (core/fact_key.hpp).
#include "core/fact_key.hpp"
#include "core/fact_set.hpp"

namespace gd {
bool loaded(const FactSet& facts) {
  return facts.get_bool("kmod.nvidia.loaded"_fact) == true && facts.is_present("pci.gpu.*.bus_id"_pattern.at(0)) &&
         facts.is_present(FactField<"cuda.device.*.">("name").at(0));
}
}  // namespace gd
