// One row per GPU across PCI, CUDA and NVML numbering (report/gpu_rows).

#include "core/fact_key.hpp"
#include "report/gpu_rows.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;

TEST_CASE("gpu rows: bus ids in both spellings join PCI, CUDA and NVML", "[report][prometheus]") {
  CHECK(gd::normalize_bus_id("00000000:1A:00.0") == "0000:1a:00.0");
  CHECK(gd::normalize_bus_id("0000:1a:00.0") == "0000:1a:00.0");
  CHECK(gd::normalize_bus_id("0001:00:00.0") == "0001:00:00.0");

  FactSet facts;
  // Two GPUs in bus order; CUDA numbers them the other way round (fastest first).
  facts.set("pci.gpu.0.bus_id"_fact, std::string("0000:1a:00.0"));
  facts.set("pci.gpu.1.bus_id"_fact, std::string("0000:3b:00.0"));
  facts.set("cuda.device.0.pci_bus_id"_fact, std::string("0000:3B:00.0"));
  facts.set("cuda.device.0.uuid"_fact, std::string("GPU-bbbb"));
  facts.set("cuda.device.1.pci_bus_id"_fact, std::string("0000:1A:00.0"));
  facts.set("nvml.device.0.pci_bus_id"_fact, std::string("00000000:1A:00.0"));
  facts.set("nvml.device.0.uuid"_fact, std::string("GPU-aaaa"));
  facts.set("nvml.device.1.pci_bus_id"_fact, std::string("00000000:3B:00.0"));
  auto rows = gd::gpu_rows(facts);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].bus_id == "0000:1a:00.0");
  CHECK(rows[0].pci == 0);
  CHECK(rows[0].cuda == 1);
  CHECK(rows[0].nvml == 0);
  CHECK(rows[0].uuid == "GPU-aaaa");
  CHECK(rows[1].cuda == 0);
  CHECK(rows[1].nvml == 1);
  CHECK(rows[1].uuid == "GPU-bbbb");
}

TEST_CASE("gpu rows: devices without a PCI GPU get rows of their own, joined on the UUID", "[report][prometheus]") {
  FactSet facts;
  for (int i = 0; i < 12; ++i) {  // numeric order, not the fact map's ("10" < "2")
    facts.set(gd::FactName::unchecked("cuda.device." + std::to_string(i) + ".uuid"), "GPU-" + std::to_string(i));
  }
  facts.set("nvml.device.0.uuid"_fact, std::string("GPU-11"));
  facts.set("nvml.device.1.pci_bus_id"_fact, std::string("00000000:99:00.0"));
  auto rows = gd::gpu_rows(facts);
  REQUIRE(rows.size() == 13);
  CHECK(rows[2].cuda == 2);
  CHECK(rows[10].cuda == 10);
  CHECK(rows[11].uuid == "GPU-11");
  CHECK(rows[11].nvml == 0);
  CHECK(rows[12].bus_id == "0000:99:00.0");
  CHECK(rows[12].nvml == 1);
  CHECK(!rows[12].cuda);
}

}  // namespace GD_UNITY_ID
