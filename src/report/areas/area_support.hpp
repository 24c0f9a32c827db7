#pragma once
// Shared by the overview-line builders: status from findings, text for unknown facts.

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"

namespace gd::areas {

using AreaNames = std::span<const std::string_view>;

// Which finding areas (a rule's `area`) each overview line answers for.
inline constexpr std::array<std::string_view, 2> k_pci_areas = {"pci", "hardware"};
inline constexpr std::array<std::string_view, 2> k_module_areas = {"driver", "firmware"};
inline constexpr std::array<std::string_view, 1> k_device_areas = {"devices"};
inline constexpr std::array<std::string_view, 1> k_container_areas = {"container"};
inline constexpr std::array<std::string_view, 2> k_library_areas = {"libraries", "services"};
inline constexpr std::array<std::string_view, 1> k_cuda_areas = {"cuda"};
inline constexpr std::array<std::string_view, 1> k_nvml_areas = {"nvml"};
inline constexpr std::array<std::string_view, 2> k_kernel_log_areas = {"kernel-log", "xid"};
inline constexpr std::array<std::string_view, 1> k_environment_areas = {"environment"};
inline constexpr std::array<std::string_view, 1> k_python_areas = {"python"};
inline constexpr std::array<std::string_view, 1> k_toolkit_areas = {"toolkit"};

/// Worst severity among findings whose area is one of `finding_areas`; ok when none.
AreaStatus worst_finding_status(const std::vector<Finding>& findings, AreaNames finding_areas);

/// The finding status, or `fallback` when no finding names one of the areas.
AreaStatus status_for(const std::vector<Finding>& findings, AreaNames finding_areas, AreaStatus fallback);

/// Why a fact is not present: its reason, "absent", or "not collected".
std::string unknown_reason(const FactSet& facts, std::string_view name);
/// Whether the fact is unknown because the run was asked to leave it out ("not checked (--scope
/// node)"): the overview says "skipped", not "unknown".
bool is_left_out(const FactSet& facts, std::string_view name);

/// "1 GPU" / "8 GPUs".
std::string plural(std::int64_t count, std::string_view noun);

// One builder per overview line, in the order of the layers.
AreaLine pci_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine module_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine device_nodes_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine container_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine libraries_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine cuda_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine nvml_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine kernel_log_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine environment_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine python_line(const FactSet& facts, const std::vector<Finding>& findings);
AreaLine toolkit_line(const FactSet& facts, const std::vector<Finding>& findings);

/// The list fact's values, or empty.
std::vector<std::string> list_of(const FactSet& facts, std::string_view name);

}  // namespace gd::areas
