#include "probes/target/target_host.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"
#include "core/all_layers.hpp"
#include "probes/shared/gpu_support.hpp"
#include "probes/shared/gpu_table.hpp"

namespace gd {
namespace {

void set_section_unknown(FactSet& facts, std::span<const FactSpec> section) {
  for (const FactSpec& spec : section) {
    if (spec.name.find('*') == std::string_view::npos) {
      facts.set_unknown(FactName::unchecked(spec.name), std::string(k_not_read_preflight), "preflight");
    }
  }
}

std::string describe(const TargetGpu& gpu) {
  std::string out = gpu.product.empty() ? gpu.given : gpu.product;
  std::vector<std::string> parts;
  if (gpu.device_id) parts.push_back(fmt::format("10de:{:04x}", *gpu.device_id));
  if (!gpu.chip.empty()) parts.push_back(gpu.chip);
  parts.push_back(gpu.architecture);
  if (!gpu.compute_capability.empty()) parts.push_back("cc " + gpu.compute_capability);
  return fmt::format("{} ({})", out, fmt::join(parts, ", "));
}

}  // namespace

void probe_target_host(Host&, const ProbeOptions& options, FactSet& facts) {
  if (!options.target) return;
  const TargetHost& target = *options.target;
  const TargetGpu& gpu = target.gpu;
  // The host layers are the target's: what it does not give is unknown (core/all_layers.hpp).
  for (const Layer& layer : all_layers()) {
    if (layer.kind != LayerKind::host) continue;
    for (CatalogSection section : layer.sections) set_section_unknown(facts, section());
  }
  const std::string from_gpu = "--target-gpu " + gpu.given;
  const std::string from_driver = "--target-driver " + target.driver;
  facts.set("target.gpu"_fact, describe(gpu), from_gpu);
  facts.set("target.driver"_fact, target.driver, from_driver);
  if (target.image_config.empty()) {
    facts.set_absent("target.image_config"_fact, "--image-config",
                     "no image configuration: the image's variables and PATH are not known (the runtime's default PATH is used)");
  } else {
    facts.set("target.image_config"_fact, target.image_config, "--image-config");
  }

  // One GPU of the target's kind, as the PCI probe would record it.
  facts.set("pci.nvidia_gpu_count"_fact, std::int64_t{1}, from_gpu);
  facts.set("pci.nvswitch_count"_fact, std::int64_t{0}, from_gpu);
  facts.set("pci.nvswitches"_fact, std::vector<std::string>{}, from_gpu);
  facts.set("pci.gpus"_fact, std::vector<std::string>{"target " + describe(gpu)}, from_gpu);
  facts.set("pci.architectures"_fact, std::vector<std::string>{gpu.architecture}, from_gpu);
  facts.set("pci.tegra_soc"_fact, false, from_gpu);
  facts.set("pci.gpu.0.bus_id"_fact, std::string("target"), from_gpu);
  facts.set("pci.gpu.0.architecture"_fact, gpu.architecture, from_gpu);
  if (gpu.device_id) facts.set("pci.gpu.0.device_id"_fact, fmt::format("{:04x}", *gpu.device_id), from_gpu);
  auto set_or_unknown = [&](FactName name, const std::string& value, std::string_view why) {
    if (value.empty()) {
      facts.set_unknown(name, std::string(why), from_gpu);
    } else {
      facts.set(name, value, from_gpu);
    }
  };
  set_or_unknown("pci.gpu.0.chip"_fact, gpu.chip, "the target names no chip");
  set_or_unknown("pci.gpu.0.compute_capability"_fact, gpu.compute_capability, "the GPU table records no compute capability for it");
  const bool blackwell = gpu.architecture == arch::blackwell;
  const bool pre_turing = gpu.architecture == arch::maxwell || gpu.architecture == arch::pascal ||
                          gpu.architecture == arch::volta || gpu.architecture == arch::pre_turing;
  for (FactName name : {"pci.any_blackwell"_fact, "pci.host_any_blackwell"_fact}) facts.set(name, blackwell, from_gpu);
  for (FactName name : {"pci.any_pre_turing"_fact, "pci.host_any_pre_turing"_fact}) facts.set(name, pre_turing, from_gpu);
  if (gpu.device_id) {
    GpuModel model = lookup_gpu_model(*gpu.device_id);
    facts.set("pci.any_grace_hopper"_fact, model.grace, from_gpu);
    facts.set("pci.host_any_grace_hopper"_fact, model.grace, from_gpu);
  }
  if (!gpu.min_driver.empty()) {
    facts.set("pci.gpu.0.min_driver_version"_fact, gpu.min_driver, from_gpu);
    facts.set("pci.min_driver_version"_fact, gpu.min_driver, from_gpu);
    facts.set("pci.min_driver_branch"_fact, static_cast<std::int64_t>(driver_branch(gpu.min_driver)), from_gpu);
  }

  // The driver: loaded, of the given version; its flavour and firmware are the host's business.
  facts.set("kmod.nvidia.loaded"_fact, true, from_driver);
  facts.set("kmod.nvidia.version"_fact, target.driver, from_driver);
  facts.set("kmod.nvidia.gpu_count"_fact, std::int64_t{1}, from_driver);
  // Whether that driver takes that GPU: judged as for a GPU the driver did not bind, by the first
  // release that supports it (probes/shared/gpu_support); which driver binds it is the host's.
  facts.set("pci.gpu.0.driver"_fact, std::string("none"), from_gpu);
  record_gpu_support(facts);
  facts.set_unknown("pci.gpu.0.driver"_fact, std::string(k_not_read_preflight), "preflight");
  facts.set_unknown("pci.drivers_bound"_fact, std::string(k_not_read_preflight), "preflight");
}

void probe_target_libraries(Host&, const ProbeOptions& options, FactSet& facts) {
  if (!options.target) return;
  const Fact* fact = facts.find("lib.libcuda.resolved"_fact);
  if (fact && fact->state == FactState::absent) {
    facts.set_unknown("lib.libcuda.resolved"_fact, "pre-flight: the container runtime injects the target driver's libraries",
                      "preflight");
  }
  // The runtime mounts the target's libraries over whatever the image holds at those paths.
  for (FactName name : {"lib.libcuda.unloadable"_fact, "lib.libnvidia_ml.unloadable"_fact, "lib.libnvidia_ptxjitcompiler.unloadable"_fact}) {
    if (facts.get_string(name)) {
      facts.set_unknown(name, "pre-flight: the container runtime mounts the target driver's libraries over the image's",
                        "preflight");
    }
  }
}

void probe_target_container(Host&, const ProbeOptions& options, FactSet& facts) {
  if (!options.target) return;
  facts.set("container.in_container"_fact, true, "preflight");
  facts.set_unknown("container.runtime"_fact, "pre-flight: the runtime that will start the image is not known", "preflight");
}

}  // namespace gd
