#pragma once
// PCI bus ids as each layer writes them: NVML and CUDA's cuDeviceGetPCIBusId give an 8-digit
// domain in upper case ("00000000:1A:00.0"), sysfs 4 digits in lower case ("0000:1a:00.0").

#include <string>
#include <string_view>

namespace gd {

/// "00000000:1A:00.0" and "0000:1a:00.0" both give "0000:1a:00.0", so that the layers' GPUs join.
std::string normalize_bus_id(std::string_view bus_id);

}  // namespace gd
