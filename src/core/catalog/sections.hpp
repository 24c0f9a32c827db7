#pragma once
// The fact catalogue is kept in one section per area so that each stays readable. Each section
// belongs to one layer (core/all_layers.hpp names its sections), and every fact of a section
// carries one of that layer's prefixes; fact_catalog.cpp joins them in the layers' order.

#include <span>

#include "core/fact_catalog.hpp"

namespace gd::catalog {

std::span<const FactSpec> pci_facts();          // pci.*, target.gpu
std::span<const FactSpec> driver_facts();       // kmod.*, modprobe.*, secureboot.*, target.driver
std::span<const FactSpec> firmware_facts();     // firmware.*
std::span<const FactSpec> device_facts();       // dev.*, proc.devices.*
std::span<const FactSpec> container_facts();    // cgroup.*, container.*, virt.*, env.nvidia_*, target.image_config
std::span<const FactSpec> library_facts();      // lib.*
std::span<const FactSpec> service_facts();      // service.*
std::span<const FactSpec> cuda_facts();         // cuda.*
std::span<const FactSpec> nvml_facts();         // nvml.*
std::span<const FactSpec> kernel_log_facts();   // klog.*
std::span<const FactSpec> limits_facts();       // limits.*
std::span<const FactSpec> python_facts();       // py.*, torch.*, wheels.*, ml.*, ext.*
std::span<const FactSpec> toolkit_facts();      // toolkit.*
std::span<const FactSpec> environment_facts();  // env.* (but env.nvidia_*)
std::span<const FactSpec> host_facts();         // host.*
std::span<const FactSpec> system_facts();       // system.*

}  // namespace gd::catalog
