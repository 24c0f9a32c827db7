#include "probes/pci/pci.hpp"

#include "core/fact_key.hpp"
#include "util/text_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <utility>
#include <vector>

#include "probes/shared/gpu_table.hpp"
#include "probes/pci/pci_sysfs.hpp"

namespace gd {
namespace {

constexpr std::string_view k_devices = "/sys/bus/pci/devices";
constexpr std::uint32_t k_vendor_nvidia = 0x10de;
constexpr std::size_t k_max_attribute = 128;       // sysfs attributes are one short line
constexpr std::size_t k_max_functions = 16384;     // more PCI functions than any real machine has
constexpr std::string_view k_device_tree_compatible = "/proc/device-tree/compatible";
constexpr std::size_t k_max_compatible = 4096;

std::string hex4(std::uint32_t value) { return fmt::format("{:04x}", value); }

// One attribute of one function: its text, or why there is none.
struct Attribute {
  std::string path;
  std::optional<std::string> text;  ///< the content (or the link target)
  bool missing = false;             ///< ENOENT: the kernel does not provide it for this device
  std::string reason;               ///< why it could not be read (when neither text nor missing)
};

Attribute read_attribute(Host& host, const std::string& dir, std::string_view name) {
  Attribute out;
  out.path = dir + "/" + std::string(name);
  auto text = host.read_file(out.path, k_max_attribute);
  if (text) {
    out.text = std::move(*text);
  } else if (text.error().code == ENOENT) {
    out.missing = true;
  } else {
    out.reason = unreadable_reason(text.error(), host);
  }
  return out;
}

Attribute read_symlink(Host& host, const std::string& dir, std::string_view name) {
  Attribute out;
  out.path = dir + "/" + std::string(name);
  auto target = host.read_link(out.path);
  if (target) {
    out.text = std::string(link_basename(*target));
  } else if (target.error().code == ENOENT) {
    out.missing = true;
  } else {
    out.reason = unreadable_reason(target.error(), host);
  }
  return out;
}

std::string unrecognised(const Attribute& attribute) {
  return fmt::format("unrecognised content '{}'", trim_whitespace(attribute.text.value_or("")));
}

// Sets `fact` from an attribute parsed by `parse`, converted by `convert`: absent when the
// kernel has no such file, unknown when it cannot be read or parsed.
template <typename Parse, typename Convert>
void set_from(FactSet& facts, FactName fact, const Attribute& attribute, Parse parse, Convert convert) {
  if (attribute.missing) {
    facts.set_absent(fact, attribute.path);
  } else if (!attribute.text) {
    facts.set_unknown(fact, attribute.reason, attribute.path);
  } else if (auto value = parse(*attribute.text)) {
    facts.set(fact, convert(*value), attribute.path);
  } else {
    facts.set_unknown(fact, unrecognised(attribute), attribute.path);
  }
}

struct Function {
  std::string bus_id;
  std::string dir;
  std::uint32_t class_code = 0;
  std::optional<std::uint32_t> device_id;
  std::string device_reason;  ///< why device_id is missing
  std::optional<std::string> driver;
  std::string driver_reason;
};

std::string driver_text(const Function& f) { return f.driver.value_or("?"); }

void read_identity(Host& host, Function& f) {
  Attribute device = read_attribute(host, f.dir, "device");
  if (device.text) {
    f.device_id = parse_sysfs_hex(*device.text);
    if (!f.device_id) f.device_reason = device.path + ": " + unrecognised(device);
  } else {
    f.device_reason = device.path + ": " + (device.missing ? std::string("ENOENT") : device.reason);
  }
  Attribute driver = read_symlink(host, f.dir, "driver");
  if (driver.text) {
    f.driver = *driver.text;
  } else if (driver.missing) {
    f.driver = "none";  // no driver has claimed the function
  } else {
    f.driver_reason = driver.path + ": " + driver.reason;
  }
}

// A yes/no over all GPUs that some GPUs cannot decide.
struct AnyOf {
  bool yes = false;
  std::string undecided;  ///< why some GPU could not tell (empty: all could)
  void set(FactSet& facts, FactName name, const std::string& source) const {
    if (yes || undecided.empty()) {
      facts.set(name, yes, source);
    } else {
      facts.set_unknown(name, undecided, source);
    }
  }
};

void add_distinct(std::vector<std::string>& list, std::string_view value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
}

// Everything the rules ask over all GPUs.
struct Summary {
  std::vector<std::string> gpus;
  std::vector<std::string> architectures;
  std::vector<std::string> drivers;
  std::string drivers_undecided;
  std::vector<std::string> gsp_files;
  std::string gsp_undecided;
  AnyOf blackwell, pre_turing, grace;
  /// The same over the GPUs the host's nvidia driver is to drive (not on vfio-pci), and apart over
  /// the GPUs nouveau holds: those count only while nvidia holds none (nouveau driving a separate
  /// display GPU beside nvidia is a working setup).
  struct Families {
    AnyOf blackwell, pre_turing, grace;
  } host, on_nouveau;
  std::string min_driver;  ///< newest lower bound so far
  std::string min_driver_undecided;
};

// Compares dotted versions numerically, segment by segment ("570.124.04" > "570.86.16").
bool version_less(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    auto take = [](std::string_view& s) {
      long value = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      std::size_t used = static_cast<std::size_t>(end - s.data());
      s.remove_prefix(std::min(s.size(), used + 1));  // the number and its dot
      return ec == std::errc() ? value : 0L;
    };
    long x = take(a);
    long y = take(b);
    if (x != y) return x < y;
  }
  return false;
}

// Drivers that hand a whole GPU to a virtual machine or to user space: the host's NVIDIA driver
// does not drive such a GPU (vfio-pci, NVIDIA's Grace Hopper/Blackwell variant
// nvgrace-gpu-vfio-pci, and the older pci-stub placeholder).
bool passthrough_driver(std::string_view driver) {
  return driver == "pci-stub" || driver.find("vfio") != std::string_view::npos;
}

using GpuField = FactField<"pci.gpu.*.">;

void record_gpu(Host& host, FactSet& facts, const Function& f, int ordinal, Summary& sum) {
  auto name = [&](GpuField field) { return field.at(ordinal); };
  facts.set(name("bus_id"), f.bus_id, f.dir);

  facts.set(name("class"), fmt::format("{:06x}", f.class_code), f.dir + "/class");
  auto hex = [](std::string_view text) { return parse_sysfs_hex(text); };
  auto as_hex4 = [](std::uint32_t value) { return hex4(value); };
  set_from(facts, name("subsystem_vendor"), read_attribute(host, f.dir, "subsystem_vendor"), hex, as_hex4);
  set_from(facts, name("subsystem_device"), read_attribute(host, f.dir, "subsystem_device"), hex, as_hex4);
  auto speed = [](std::string_view text) { return parse_link_speed(text); };
  auto same = [](const auto& value) { return value; };
  set_from(facts, name("link_speed"), read_attribute(host, f.dir, "current_link_speed"), speed, same);
  set_from(facts, name("max_link_speed"), read_attribute(host, f.dir, "max_link_speed"), speed, same);
  auto number = [](std::string_view text) { return parse_sysfs_int(text); };
  set_from(facts, name("link_width"), read_attribute(host, f.dir, "current_link_width"), number, same);
  set_from(facts, name("max_link_width"), read_attribute(host, f.dir, "max_link_width"), number, same);
  set_from(facts, name("numa_node"), read_attribute(host, f.dir, "numa_node"), number, same);
  set_from(facts, name("iommu_group"), read_symlink(host, f.dir, "iommu_group"), number, same);

  const std::string device_source = f.dir + "/device";
  if (f.driver) {
    facts.set(name("driver"), *f.driver, f.dir + "/driver");
    add_distinct(sum.drivers, *f.driver);
  } else {
    facts.set_unknown(name("driver"), f.driver_reason, f.dir + "/driver");
    sum.drivers_undecided = f.driver_reason;
  }

  if (!f.device_id) {
    for (GpuField field : std::initializer_list<GpuField>{"device_id", "chip", "architecture", "compute_capability",
                                                          "gsp_firmware_file", "min_driver_version"}) {
      facts.set_unknown(name(field), f.device_reason, device_source);
    }
    sum.gpus.push_back(fmt::format("{} 10de:???? driver={}", f.bus_id, driver_text(f)));
    add_distinct(sum.architectures, arch::unknown);
    sum.blackwell.undecided = sum.pre_turing.undecided = sum.grace.undecided = f.device_reason;
    sum.host.blackwell.undecided = sum.host.pre_turing.undecided = sum.host.grace.undecided = f.device_reason;
    sum.gsp_undecided = sum.min_driver_undecided = f.device_reason;
    return;
  }

  const std::string id = hex4(*f.device_id);
  const std::string table = "gpudoctor GPU table (probes/shared/gpu_table.cpp)";
  const std::string not_in_table = fmt::format("device id 10de:{} is not in gpudoctor's GPU table", id);
  GpuModel model = lookup_gpu_model(static_cast<std::uint16_t>(*f.device_id));
  facts.set(name("device_id"), id, device_source);
  facts.set(name("architecture"), std::string(model.architecture), table);
  add_distinct(sum.architectures, model.architecture);
  if (!model.chip.empty()) {
    facts.set(name("chip"), std::string(model.chip), table);
  } else {
    facts.set_unknown(name("chip"), model.known ? "the table names only the architecture for this id" : not_in_table,
                      table);
  }
  if (!model.compute_capability.empty()) {
    facts.set(name("compute_capability"), std::string(model.compute_capability), table);
  } else {
    facts.set_unknown(name("compute_capability"), model.chip.empty() && !model.known ? not_in_table
                                                                                      : "not recorded for this chip",
                      table);
  }

  const bool arch_unknown = !model.known && !model.pre_turing;
  if (model.pre_turing) {
    facts.set_absent(name("gsp_firmware_file"), table, "pre-Turing GPUs have no GSP");
  } else if (arch_unknown) {
    facts.set_unknown(name("gsp_firmware_file"), not_in_table, table);
    sum.gsp_undecided = not_in_table;
  } else {
    facts.set(name("gsp_firmware_file"), std::string(model.gsp_firmware), table);
    add_distinct(sum.gsp_files, model.gsp_firmware);
  }

  if (!model.min_driver.empty()) {
    facts.set(name("min_driver_version"), std::string(model.min_driver), table);
    if (sum.min_driver.empty() || version_less(sum.min_driver, model.min_driver)) {
      sum.min_driver = std::string(model.min_driver);
    }
  } else if (arch_unknown) {
    facts.set_unknown(name("min_driver_version"), not_in_table, table);
    sum.min_driver_undecided = not_in_table;
  } else {
    facts.set_absent(name("min_driver_version"), table, "no first supporting driver is recorded for this chip");
  }

  sum.blackwell.yes = sum.blackwell.yes || model.architecture == arch::blackwell;
  sum.pre_turing.yes = sum.pre_turing.yes || model.pre_turing;
  sum.grace.yes = sum.grace.yes || model.grace;
  if (arch_unknown) {
    sum.blackwell.undecided = sum.grace.undecided = not_in_table;
  }
  if (!f.driver) {
    sum.host.blackwell.undecided = sum.host.pre_turing.undecided = sum.host.grace.undecided = f.driver_reason;
  } else if (!passthrough_driver(*f.driver)) {
    Summary::Families& families = *f.driver == "nouveau" ? sum.on_nouveau : sum.host;
    families.blackwell.yes = families.blackwell.yes || model.architecture == arch::blackwell;
    families.pre_turing.yes = families.pre_turing.yes || model.pre_turing;
    families.grace.yes = families.grace.yes || model.grace;
    if (arch_unknown) {
      families.blackwell.undecided = families.grace.undecided = not_in_table;
    }
  }

  std::string line = fmt::format("{} 10de:{}", f.bus_id, id);
  if (!model.chip.empty()) line += " " + std::string(model.chip);
  line += " " + std::string(model.architecture);
  if (!model.compute_capability.empty()) line += " cc " + std::string(model.compute_capability);
  sum.gpus.push_back(line + " driver=" + driver_text(f));
}

void set_summary(FactSet& facts, const Summary& sum, int gpu_count, const std::string& src) {
  facts.set("pci.nvidia_gpu_count"_fact, static_cast<std::int64_t>(gpu_count), src);
  facts.set("pci.gpus"_fact, sum.gpus, src);
  facts.set("pci.architectures"_fact, sum.architectures, src);
  if (sum.drivers_undecided.empty()) {
    facts.set("pci.drivers_bound"_fact, sum.drivers, src);
  } else {
    facts.set_unknown("pci.drivers_bound"_fact, sum.drivers_undecided, src);
  }
  if (sum.gsp_undecided.empty()) {
    facts.set("pci.gsp_firmware_files"_fact, sum.gsp_files, src);
  } else {
    facts.set_unknown("pci.gsp_firmware_files"_fact, sum.gsp_undecided, src);
  }
  sum.blackwell.set(facts, "pci.any_blackwell"_fact, src);
  sum.pre_turing.set(facts, "pci.any_pre_turing"_fact, src);
  sum.grace.set(facts, "pci.any_grace_hopper"_fact, src);
  Summary::Families host = sum.host;
  if (std::find(sum.drivers.begin(), sum.drivers.end(), "nvidia") == sum.drivers.end()) {
    for (auto [into, from] : {std::pair{&host.blackwell, &sum.on_nouveau.blackwell},
                              std::pair{&host.pre_turing, &sum.on_nouveau.pre_turing},
                              std::pair{&host.grace, &sum.on_nouveau.grace}}) {
      into->yes = into->yes || from->yes;
      if (into->undecided.empty()) into->undecided = from->undecided;
    }
  }
  host.blackwell.set(facts, "pci.host_any_blackwell"_fact, src);
  host.pre_turing.set(facts, "pci.host_any_pre_turing"_fact, src);
  host.grace.set(facts, "pci.host_any_grace_hopper"_fact, src);
  // A lower bound from the GPUs the table knows holds whatever the others need.
  if (!sum.min_driver.empty()) {
    facts.set("pci.min_driver_version"_fact, sum.min_driver, src);
    facts.set("pci.min_driver_branch"_fact, static_cast<std::int64_t>(driver_branch(sum.min_driver)), src);
  } else if (!sum.min_driver_undecided.empty()) {
    facts.set_unknown("pci.min_driver_version"_fact, sum.min_driver_undecided, src);
    facts.set("pci.min_driver_branch"_fact, std::int64_t{0}, src);
  } else {
    facts.set_absent("pci.min_driver_version"_fact, src, "no GPU here has a recorded first supporting driver");
    facts.set("pci.min_driver_branch"_fact, std::int64_t{0}, src);
  }
}

void set_all_unknown(FactSet& facts, const std::string& reason, const std::string& src) {
  for (FactName name : {"pci.nvidia_gpu_count"_fact, "pci.nvswitch_count"_fact, "pci.gpus"_fact, "pci.nvswitches"_fact,
                                "pci.architectures"_fact, "pci.drivers_bound"_fact, "pci.any_blackwell"_fact, "pci.any_pre_turing"_fact,
                                "pci.any_grace_hopper"_fact, "pci.host_any_blackwell"_fact, "pci.host_any_pre_turing"_fact,
                                "pci.host_any_grace_hopper"_fact, "pci.gsp_firmware_files"_fact, "pci.min_driver_version"_fact,
                                "pci.min_driver_branch"_fact}) {
    facts.set_unknown(name, reason, src);
  }
}

void probe_tegra(Host& host, FactSet& facts) {
  const std::string path(k_device_tree_compatible);
  auto text = host.read_file(path, k_max_compatible);
  if (text) {
    facts.set("pci.tegra_soc"_fact, compatible_names_tegra(*text), path);
  } else if (text.error().code == ENOENT) {
    facts.set("pci.tegra_soc"_fact, false, path);  // no device tree: x86, or an ACPI arm64 server
  } else {
    facts.set_unknown("pci.tegra_soc"_fact, unreadable_reason(text.error(), host), path);
  }
}

}  // namespace

void probe_pci(Host& host, const ProbeOptions&, FactSet& facts) {
  probe_tegra(host, facts);
  const std::string src(k_devices);
  auto names = host.list_dir(k_devices);
  if (!names) {
    set_all_unknown(facts,
                    names.error().code == ENOENT
                        ? std::string("/sys/bus/pci/devices does not exist: sysfs is not mounted here, or this machine "
                                      "has no PCI bus")
                        : unreadable_reason(names.error(), host),
                    src);
    return;
  }
  if (names->empty()) {
    set_all_unknown(facts, "/sys/bus/pci/devices lists no PCI function: this /sys does not show the machine's PCI bus",
                    src);
    return;
  }
  if (names->size() > k_max_functions) {
    set_all_unknown(facts, fmt::format("more than {} PCI functions listed; not examined", k_max_functions), src);
    return;
  }

  std::vector<Function> gpus;
  std::vector<Function> switches;
  std::string undecided;  // a function whose vendor or class could not be read
  for (const std::string& bus_id : *names) {
    Function f;
    f.bus_id = bus_id;
    f.dir = src + "/" + bus_id;
    Attribute vendor = read_attribute(host, f.dir, "vendor");
    if (vendor.missing) continue;  // gone since the listing (hot unplug)
    if (!vendor.text) {
      undecided = vendor.path + ": " + vendor.reason;
      continue;
    }
    auto vendor_id = parse_sysfs_hex(*vendor.text);
    if (!vendor_id) {
      undecided = vendor.path + ": " + unrecognised(vendor);
      continue;
    }
    if (*vendor_id != k_vendor_nvidia) continue;
    Attribute klass = read_attribute(host, f.dir, "class");
    auto code = klass.text ? parse_sysfs_hex(*klass.text) : std::nullopt;
    if (!code) {
      undecided = klass.path + ": " + (klass.text ? unrecognised(klass) : klass.missing ? "ENOENT" : klass.reason);
      continue;
    }
    PciFunctionKind kind = classify_pci_class(*code);
    if (kind == PciFunctionKind::other) continue;
    f.class_code = *code;
    read_identity(host, f);
    (kind == PciFunctionKind::gpu ? gpus : switches).push_back(std::move(f));
  }

  Summary sum;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    record_gpu(host, facts, gpus[i], static_cast<int>(i), sum);
  }
  std::vector<std::string> switch_lines;
  for (const Function& f : switches) {
    std::string id = f.device_id ? hex4(*f.device_id) : std::string("????");
    switch_lines.push_back(fmt::format("{} 10de:{} driver={}", f.bus_id, id, driver_text(f)));
  }
  if (!undecided.empty()) {
    // Some function could not be classified: it may be an NVIDIA GPU, so no count is certain.
    set_all_unknown(facts, "cannot tell whether every PCI function is an NVIDIA GPU: " + undecided, src);
    return;
  }
  set_summary(facts, sum, static_cast<int>(gpus.size()), src);
  facts.set("pci.nvswitch_count"_fact, static_cast<std::int64_t>(switches.size()), src);
  facts.set("pci.nvswitches"_fact, switch_lines, src);
}

}  // namespace gd
