#include "probes/iommu/iommu_settings.hpp"

#include "util/text_split.hpp"

namespace gd {
namespace {

// Words whose key alone says they are about the IOMMU (kernel-parameters.txt).
constexpr std::string_view k_iommu_keys[] = {
    "iommu",             // iommu=pt / nopt / off / force / soft ... (x86)
    "intel_iommu",       // intel_iommu=on / off / sm_on ...
    "amd_iommu",         // amd_iommu=off / pgtbl_v2 / force_isolation ...
    "iommu.passthrough", // 1: identity domains by default; 0: translated
    "iommu.strict",      // 0: lazy invalidation (DMA-FQ); 1: strict (DMA)
    "pcie_acs_override", // out-of-tree ACS override patch (VFIO users): groups split by fiat
};

bool names_acs(std::string_view pci_value) {
  // pci=noacs, pci=disable_acs_redir=<devices>, pci=config_acs=<...>; several pci= values may
  // be joined with commas, but disable_acs_redir's own list uses ';' and '@'.
  return pci_value.find("acs") != std::string_view::npos;
}

}  // namespace

std::vector<std::string> iommu_cmdline_options(std::string_view cmdline) {
  std::vector<std::string> options;
  for (std::string_view word : split_words(trim_whitespace(cmdline))) {
    word = trim_whitespace(word);  // the line ends with a newline; a tab may separate words
    std::size_t eq = word.find('=');
    std::string_view key = word.substr(0, eq);
    bool wanted = false;
    for (std::string_view known : k_iommu_keys) wanted = wanted || key == known;
    if (!wanted && key == "pci" && eq != std::string_view::npos) wanted = names_acs(word.substr(eq + 1));
    if (wanted) options.emplace_back(word);
  }
  return options;
}

DomainKind classify_domain_type(std::string_view type) {
  type = trim_whitespace(type);
  if (type == "DMA" || type == "DMA-FQ") return DomainKind::translating;
  if (type == "identity") return DomainKind::passthrough;
  if (type == "unmanaged") return DomainKind::user_owned;
  if (type == "blocked") return DomainKind::blocked;
  return DomainKind::other;
}

}  // namespace gd
