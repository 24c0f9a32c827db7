#include "probes/target/target_gpu.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "probes/shared/gpu_table.hpp"

namespace gd {
namespace {

// Product names, as pci.ids names them, of the exact rows of the GPU table (probes/shared/gpu_table.cpp),
// plus the short names people use for the data-center parts. Matching ignores case, an "NVIDIA "
// prefix, spaces and dashes.
struct ProductName {
  std::string_view name;
  std::uint16_t device_id;
};
constexpr std::array k_products = {
    ProductName{"RTX 5090", 0x2b85},         ProductName{"RTX 5090 D", 0x2b87},
    ProductName{"RTX PRO 6000 WS", 0x2bb1},  ProductName{"RTX PRO 6000 Max-Q", 0x2bb4},
    ProductName{"RTX PRO 6000 Server", 0x2bb5}, ProductName{"RTX PRO 6000", 0x2bb5},
    ProductName{"RTX PRO 6000 Blackwell", 0x2bb5},
    ProductName{"RTX 5080", 0x2c02},         ProductName{"RTX 5070 Ti", 0x2c05},
    ProductName{"RTX 5060", 0x2d05},         ProductName{"B200", 0x2901},
    ProductName{"GB200", 0x2941},            ProductName{"B300", 0x3182},
    ProductName{"GB300", 0x31c2},            ProductName{"GB10", 0x2e12},
    ProductName{"H100 NVL", 0x2321},         ProductName{"H100 SXM5 80GB", 0x2330},
    ProductName{"H100", 0x2330},             ProductName{"H100 PCIe", 0x2331},
    ProductName{"H200 SXM 141GB", 0x2335},   ProductName{"H200", 0x2335},
    ProductName{"H200 NVL", 0x233b},         ProductName{"GH200", 0x2342},
    ProductName{"A100 SXM4 40GB", 0x20b0},   ProductName{"A100 PCIe 40GB", 0x20b1},
    ProductName{"A100 SXM4 80GB", 0x20b2},   ProductName{"A100", 0x20b2},
    ProductName{"A100 PCIe 80GB", 0x20b5},   ProductName{"RTX 6000 Ada", 0x26b1},
    ProductName{"L40", 0x26b5},              ProductName{"L40S", 0x26b9},
    ProductName{"RTX 4090", 0x2684},         ProductName{"Tesla T4", 0x1eb8},
    ProductName{"T4", 0x1eb8},               ProductName{"V100 SXM2 16GB", 0x1db1},
    ProductName{"V100", 0x1db1},             ProductName{"V100 PCIe 32GB", 0x1db6},
};

std::string folded(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '-' || c == '_') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (out.starts_with("nvidia")) out.erase(0, 6);
  return out;
}

// The first (most specific) product name of a device id; empty when the table names none.
std::string product_of(std::uint16_t device_id) {
  for (const ProductName& product : k_products) {
    if (product.device_id == device_id) return std::string(product.name);
  }
  return {};
}

std::optional<unsigned> parse_hex(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty() || text.size() > 4) return std::nullopt;
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<unsigned> parse_decimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

TargetGpu from_device_id(std::string_view given, std::uint16_t id, std::string product) {
  GpuModel model = lookup_gpu_model(id);
  TargetGpu gpu;
  gpu.given = std::string(given);
  gpu.device_id = id;
  gpu.product = std::move(product);
  gpu.chip = std::string(model.chip);
  gpu.architecture = std::string(model.architecture);
  gpu.compute_capability = std::string(model.compute_capability);
  gpu.min_driver = std::string(model.min_driver);
  gpu.gsp_firmware = std::string(model.gsp_firmware);
  return gpu;
}

// "sm_120" / "sm_90a" / "compute_90" / "12.0" / "9.0" -> "12.0" / "9.0"; nullopt otherwise.
std::optional<std::string> compute_capability_of(std::string_view text) {
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (!text.starts_with(prefix)) continue;
    std::string_view digits = text.substr(prefix.size());
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
    auto value = parse_decimal(digits);
    if (!value || digits.size() < 2 || *value < 10) return std::nullopt;
    return std::to_string(*value / 10) + "." + std::to_string(*value % 10);
  }
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = parse_decimal(text.substr(0, dot));
  auto minor = parse_decimal(text.substr(dot + 1));
  if (!major || !minor || *major == 0 || *major > 20 || *minor > 9) return std::nullopt;
  return std::to_string(*major) + "." + std::to_string(*minor);
}

}  // namespace

std::string_view architecture_of_compute_capability(std::string_view cc) {
  auto dot = cc.find('.');
  auto major = parse_decimal(cc.substr(0, dot));
  auto minor = dot == std::string_view::npos ? std::optional<unsigned>(0) : parse_decimal(cc.substr(dot + 1));
  if (!major || !minor) return arch::unknown;
  switch (*major) {
    case 5: return arch::maxwell;
    case 6: return arch::pascal;
    case 7: return *minor >= 5 ? arch::turing : arch::volta;
    case 8: return *minor == 9 ? arch::ada : arch::ampere;
    case 9: return arch::hopper;
    case 10: case 11: case 12: return arch::blackwell;
    default: return arch::unknown;
  }
}

std::expected<TargetGpu, std::string> parse_target_gpu(std::string_view text) {
  const std::string why =
      "--target-gpu " + std::string(text) +
      ": not a GPU gpudoctor knows; give a PCI id (10de:2bb5), a product name (H200, B200, RTX PRO 6000) or a "
      "compute capability (sm_120, 9.0)";
  if (text.empty()) return std::unexpected(why);
  // A PCI id: "10de:2335" (vendor must be NVIDIA's) or a bare device id "0x2335".
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    auto vendor = parse_hex(text.substr(0, colon));
    auto device = parse_hex(text.substr(colon + 1));
    if (!vendor || !device) return std::unexpected(why);
    if (*vendor != 0x10de) return std::unexpected("--target-gpu " + std::string(text) + ": not an NVIDIA PCI id (vendor 10de)");
    return from_device_id(text, static_cast<std::uint16_t>(*device), product_of(static_cast<std::uint16_t>(*device)));
  }
  if (text.starts_with("0x") || text.starts_with("0X")) {
    auto device = parse_hex(text);
    if (!device) return std::unexpected(why);
    return from_device_id(text, static_cast<std::uint16_t>(*device), product_of(static_cast<std::uint16_t>(*device)));
  }
  if (auto cc = compute_capability_of(text)) {
    TargetGpu gpu;
    gpu.given = std::string(text);
    gpu.compute_capability = *cc;
    gpu.architecture = std::string(architecture_of_compute_capability(*cc));
    if (gpu.architecture == arch::unknown) return std::unexpected(why);
    return gpu;
  }
  const std::string wanted = folded(text);
  for (const ProductName& product : k_products) {
    if (folded(product.name) == wanted) return from_device_id(text, product.device_id, std::string(product.name));
  }
  return std::unexpected(why);
}

std::expected<std::string, std::string> parse_target_driver(std::string_view text) {
  const std::string why = "--target-driver " + std::string(text) +
                          ": not a driver version; give the version nvidia-smi or /proc/driver/nvidia/version shows "
                          "(580.95.05)";
  // major.minor[.patch], digits only, the major a plausible branch.
  int parts = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!parse_decimal(part) || part.size() > 5) return std::unexpected(why);
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts < 2 || parts > 3) return std::unexpected(why);
  int branch = driver_branch(text);
  if (branch < 300 || branch > 999) return std::unexpected(why);
  return std::string(text);
}

}  // namespace gd
