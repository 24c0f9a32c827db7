#pragma once
// The fact catalogue is kept in one section per area so that each stays readable; fact_catalog.cpp
// joins them, in this order, into the one declared catalogue.

#include <span>

#include "core/fact_catalog.hpp"

namespace gd::catalog {

std::span<const FactSpec> host_facts();         // host.*, env.*
std::span<const FactSpec> pci_facts();          // pci.*, gpu.*
std::span<const FactSpec> driver_facts();       // kmod.*, modprobe.*, secureboot.*
std::span<const FactSpec> firmware_facts();     // firmware.*
std::span<const FactSpec> device_facts();       // dev.*
std::span<const FactSpec> container_facts();    // cgroup.*, container.*, virt.*
std::span<const FactSpec> library_facts();      // lib.*
std::span<const FactSpec> system_facts();       // system.*, service.*
std::span<const FactSpec> kernel_log_facts();   // klog.*
std::span<const FactSpec> cuda_facts();         // cuda.*, nvml.*
std::span<const FactSpec> python_facts();       // py.*, torch.*, wheels.*, ml.*
std::span<const FactSpec> toolkit_facts();      // toolkit.*

}  // namespace gd::catalog
