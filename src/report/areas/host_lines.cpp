// Overview lines for the host layers, from the PCI slot to the libraries: one line each, the
// details (one per GPU) below it. Facts another probe did not produce read as "not collected".

#include <algorithm>

#include <fmt/format.h>

#include "report/areas/area_support.hpp"

namespace gd::areas {
namespace {

// A pre-flight check (--target-gpu): the host layers are the target's, given, not read.
bool preflight(const FactSet& facts) { return facts.is_present("target.gpu"); }

}  // namespace

AreaLine pci_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (preflight(facts)) {
    line.summary = "target: " + *facts.get_string("target.gpu") + " (pre-flight: not read)";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto count = facts.get_int("pci.nvidia_gpu_count");
  if (!count) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "pci.nvidia_gpu_count");
    return line;
  }
  line.summary = plural(*count, "GPU");
  auto architectures = list_of(facts, "pci.architectures");
  if (!architectures.empty()) {
    line.summary += fmt::format(" ({})", fmt::join(architectures, ", "));
  }
  if (auto switches = facts.get_int("pci.nvswitch_count"); switches && *switches > 0) {
    line.summary += ", " + plural(*switches, "NVSwitch");
  }
  line.details = list_of(facts, "pci.gpus");
  line.status = status_for(findings, layer, *count > 0 ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

AreaLine module_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (preflight(facts)) {
    line.summary = "target: driver " + facts.get_string("target.driver").value_or("?");
    if (auto cuda = facts.get_string("container.driver_cuda_version")) line.summary += " (CUDA " + *cuda + ")";
    line.summary += " (pre-flight: not read)";
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto loaded = facts.get_bool("kmod.nvidia.loaded");
  if (!loaded) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "kmod.nvidia.loaded");
    return line;
  }
  if (!*loaded) {
    line.status = status_for(findings, layer, AreaStatus::warning);
    line.summary = "not loaded (no /proc/driver/nvidia)";
    return line;
  }
  line.summary = fmt::format("{} {}", facts.get_string("kmod.nvidia.flavor").value_or("?"),
                             facts.get_string("kmod.nvidia.version").value_or("(version unknown)"));
  if (auto uvm = facts.get_bool("kmod.nvidia_uvm.loaded")) {
    line.summary += *uvm ? ", nvidia_uvm loaded" : ", nvidia_uvm NOT loaded";
  }
  auto firmware = list_of(facts, "kmod.nvidia.gpu_firmware_versions");
  if (!firmware.empty()) {
    line.summary += fmt::format(", GSP firmware {}", fmt::join(firmware, "/"));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

AreaLine device_nodes_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (preflight(facts)) {
    line.summary = "not read: the container runtime creates them on the target host (pre-flight)";
    line.status = status_for(findings, layer, AreaStatus::skipped);
    return line;
  }
  auto ctl = facts.get_string("dev.nvidiactl.state");
  auto uvm = facts.get_string("dev.uvm.state");
  if (!ctl && !uvm) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "dev.nvidiactl.state");
    return line;
  }
  std::string uvm_text = uvm.value_or("?");
  if (auto major = facts.get_int("dev.uvm.major")) {
    uvm_text += fmt::format(" (major {})", *major);
  }
  line.summary = fmt::format("nvidiactl {}, nvidia-uvm {}", ctl.value_or("?"), uvm_text);
  auto missing = list_of(facts, "dev.gpu_nodes_missing");
  auto denied = list_of(facts, "dev.gpu_nodes_denied");
  if (!missing.empty()) {
    line.summary += fmt::format(", missing {}", fmt::join(missing, " "));
  }
  if (!denied.empty()) {
    line.summary += fmt::format(", denied {}", fmt::join(denied, "; "));
  }
  // --root: the tree's nodes were checked with stat only.
  auto fine = [](const std::optional<std::string>& state) { return state == "ok" || state == "unopened"; };
  if (ctl == "unopened" || uvm == "unopened") line.summary += "; opening not tested (a --root tree's nodes are not opened)";
  bool all_ok = fine(ctl) && fine(uvm) && missing.empty() && denied.empty();
  line.status = status_for(findings, layer, all_ok ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

AreaLine container_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (preflight(facts)) {
    line.summary = "the image, in a container the target's runtime starts (pre-flight)";
    if (auto visible = facts.get_string("env.nvidia_visible_devices")) line.summary += ", NVIDIA_VISIBLE_DEVICES=" + *visible;
    if (auto caps = facts.get_string("env.nvidia_driver_capabilities")) line.summary += ", NVIDIA_DRIVER_CAPABILITIES=" + *caps;
    if (auto require = facts.get_string("env.nvidia_require_cuda")) line.summary += ", NVIDIA_REQUIRE_CUDA=" + *require;
    line.status = status_for(findings, layer, AreaStatus::ok);
    return line;
  }
  auto runtime = facts.get_string("container.runtime");
  auto cgroup = facts.get_string("cgroup.version");
  auto hypervisor = facts.get_string("virt.hypervisor");
  if (!runtime && !cgroup && !hypervisor) {
    line.status = status_for(findings, layer, AreaStatus::unknown);
    line.summary = "unknown: " + unknown_reason(facts, "container.runtime");
    return line;
  }
  std::vector<std::string> parts;
  parts.push_back(runtime && *runtime != "none" ? *runtime + " container" : "not in a container");
  if (facts.get_bool("virt.is_vm") == true) {
    parts.push_back(hypervisor && *hypervisor != "none" && *hypervisor != "unknown" ? "VM (" + *hypervisor + ")" : "in a VM");
  }
  if (cgroup) {
    parts.push_back("cgroup " + *cgroup);
  }
  if (auto visible = facts.get_string("env.nvidia_visible_devices")) {
    parts.push_back("NVIDIA_VISIBLE_DEVICES=" + *visible);
  }
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

AreaLine libraries_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  auto resolved = facts.get_string("lib.libcuda.resolved");
  // A file is there but broken: never "not on the search path" (libraries.libcuda-unloadable).
  auto broken = facts.get_string("lib.libcuda.unloadable_path");
  if (broken && !resolved) {
    line.status = status_for(findings, layer, AreaStatus::error);
    line.summary = fmt::format("libcuda.so.1 → {} cannot be loaded ({}, {} bytes)", *broken,
                               facts.get_string("lib.libcuda.unloadable").value_or("?"),
                               facts.get_int("lib.libcuda.unloadable_size").value_or(0));
    return line;
  }
  if (!resolved) {
    const Fact* fact = facts.find("lib.libcuda.resolved");
    bool absent = fact && fact->state == FactState::absent;
    line.status = status_for(findings, layer, absent ? AreaStatus::warning : AreaStatus::unknown);
    line.summary = absent ? "libcuda.so.1 is not on the loader's search path" : "unknown: " + unknown_reason(facts, "lib.libcuda.resolved");
    return line;
  }
  line.summary = fmt::format("libcuda.so.1 → {}", *resolved);
  if (auto via = facts.get_string("lib.libcuda.resolved_via")) {
    line.summary += fmt::format(" (via {})", *via);
  }
  if (facts.get_bool("lib.libcuda.matches_loaded") == false) {
    line.summary += fmt::format("; but CUDA loaded {}", facts.get_string("cuda.libcuda.path").value_or("another file"));
  }
  auto versions = list_of(facts, "lib.libcuda.versions");
  if (versions.size() > 1) {
    line.summary += fmt::format("; versions on the path: {}", fmt::join(versions, ", "));
  }
  line.status = status_for(findings, layer, AreaStatus::ok);
  return line;
}

AreaLine kernel_log_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (preflight(facts)) {
    line.summary = "not read: the target host's (pre-flight)";
    line.status = status_for(findings, layer, AreaStatus::skipped);
    return line;
  }
  auto readable = facts.get_bool("klog.readable");
  auto trust = facts.get_string("klog.source_trust");
  if (readable != true) {
    line.status = status_for(findings, layer, AreaStatus::skipped);
    // A syslog file that others could have written was read but not believed.
    line.summary = trust && trust->starts_with("untrusted")
                       ? "not used: " + facts.get_string("klog.source").value_or("the syslog file") + " " + *trust
                       : "not read: " + unknown_reason(facts, "klog.readable");
    return line;
  }
  auto xids = list_of(facts, "klog.xid_codes");
  auto rm = list_of(facts, "klog.rm_init_adapter");
  std::vector<std::string> parts;
  if (!xids.empty()) {
    parts.push_back(fmt::format("Xid {}", fmt::join(xids, ", ")));
  }
  if (!rm.empty()) {
    parts.push_back(fmt::format("RmInitAdapter failed {}", fmt::join(rm, ", ")));
  }
  // Messages no Xid or RmInitAdapter count covers (API mismatch, a refused module signature) are
  // named by the findings that read them, also where another finding explains them.
  std::vector<std::string> found;
  for (const Finding& finding : findings) {
    if (answers_for(layer, finding.area)) found.push_back(finding.id);
    for (const std::string& consequence : finding.consequences) {
      if (is_layer_rule(layer, consequence)) found.push_back(consequence);  // klog.*, xid.*
    }
  }
  if (parts.empty() && !found.empty()) {
    parts.push_back(fmt::format("{}", fmt::join(found, ", ")));
  }
  line.summary = parts.empty() ? "no NVIDIA driver errors" : fmt::format("{}", fmt::join(parts, "; "));
  if (auto source = facts.get_string("klog.source")) {
    // How far a syslog file is believed (klog.source_trust); /dev/kmsg is the kernel's own.
    line.summary += " (" + *source + (trust && *trust != "kernel" ? "; " + *trust : "") + ")";
  }
  line.status = status_for(findings, layer, parts.empty() ? AreaStatus::ok : AreaStatus::warning);
  return line;
}

}  // namespace gd::areas
