// PCI functions of vendor 0x10de and what their device ids mean (probes/pci).
#include "core/catalog/sections.hpp"

namespace gd::catalog {

std::span<const FactSpec> pci_facts() { return {}; }

}  // namespace gd::catalog
