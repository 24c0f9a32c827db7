// GPU health from NVML: the helper's health lines against the fake NVML (tests/fakes/
// fake_nvml_health.c), then the facts and sums gpudoctor makes of them. A query the GPU does
// not support (NOT_SUPPORTED) is unknown for that GPU and "not affected" in the sums; a missing
// symbol (an older NVML) leaves the sums unknown; nothing is a false finding.
#include "core/fact_key.hpp"
#include "probes/cuda/nvml_health.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fact_access.hpp"
#include "helper_run.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::test::list_of;
using gd::test::reason_of;
using gd::test::ScopedEnv;
using gd::test::state_of;

namespace {

gd::FactSet health_facts(const gd::HelperRequest& request) {
  gd::HelperOutcome outcome = gd::test::run(request);
  REQUIRE(outcome.status == gd::HelperOutcome::Status::finished);
  gd::HelperReply reply = gd::test::parsed(outcome);
  REQUIRE(reply.complete);
  gd::FactSet facts;
  gd::record_nvml_health(reply, facts);
  return facts;
}

gd::FactSet health_facts() { return health_facts(gd::test::fake_request()); }

const std::vector<std::string> k_sums = {
    "nvml.health.ecc_uncorrected_volatile"_fact, "nvml.health.ecc_uncorrected_aggregate"_fact, "nvml.health.remap_pending"_fact,
    "nvml.health.remap_failed"_fact, "nvml.health.remap_exhausted"_fact, "nvml.health.retired_pending"_fact,
    "nvml.health.recovery_actions"_fact, "nvml.health.inforom_corrupt"_fact, "nvml.health.compute_prohibited"_fact,
    "nvml.health.compute_exclusive_busy"_fact, "nvml.health.mig_pending"_fact, "nvml.health.mig_without_cuda_device"_fact,
    "nvml.health.fabric_not_registered"_fact, "nvml.health.fabric_degraded"_fact, "nvml.health.pcie_degraded"_fact,
    "nvml.health.clocks_slowdown"_fact, "nvml.health.persistence_off"_fact};

}  // namespace

TEST_CASE("nvml health: a healthy H200 has every sum empty", "[probes][nvml_health]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  gd::FactSet facts = health_facts();
  for (const std::string& sum : k_sums) {
    INFO(sum);
    CHECK(list_of(facts, sum).empty());
  }
  CHECK(facts.get_bool("nvml.device.1.ecc.enabled"_fact) == true);
  CHECK(facts.get_int("nvml.device.1.remap.uncorrectable"_fact) == 0);
  CHECK(facts.get_bool("nvml.device.1.persistence"_fact) == true);
  CHECK(facts.get_string("nvml.device.1.compute_mode"_fact) == "Default");
  CHECK(list_of(facts, "nvml.device.1.clocks_event_reasons"_fact) == std::vector<std::string>{"GPU idle"});
  CHECK(facts.get_int("nvml.device.1.pcie.width_max"_fact) == 16);
  // Hopper remaps rows and has no page retirement, a single H200 no fabric: unknown, not faults.
  CHECK(state_of(facts, "nvml.device.1.retired.pending"_fact) == gd::FactState::unknown);
  CHECK(reason_of(facts, "nvml.device.1.retired.pending"_fact).find("NOT_SUPPORTED") != std::string::npos);
  CHECK(state_of(facts, "nvml.device.1.fabric.state"_fact) == gd::FactState::unknown);
  CHECK(state_of(facts, "nvml.health.remap_pending_gpus"_fact) == gd::FactState::absent);
}

TEST_CASE("nvml health: each fault lands in its sum, naming the GPU", "[probes][nvml_health]") {
  ScopedEnv count("FAKE_CUDA_DEVICE_COUNT", "2");
  ScopedEnv remap("FAKE_NVML_REMAP_1", "0,3,1,1");
  ScopedEnv histogram("FAKE_NVML_REMAP_HISTOGRAM_1", "3060,8,2,0,2");
  ScopedEnv dbe("FAKE_NVML_UNCORRECTED_1", "2,5");
  ScopedEnv history("FAKE_NVML_UNCORRECTED_0", "0,1");
  ScopedEnv action("FAKE_NVML_RECOVERY_ACTION_1", "1");
  ScopedEnv rom("FAKE_NVML_INFOROM_RESULT_0", "14");
  ScopedEnv mode("FAKE_NVML_COMPUTE_MODE_0", "2");
  ScopedEnv mig("FAKE_NVML_MIG_1", "0,1");
  ScopedEnv clocks("FAKE_NVML_CLOCKS_REASONS_0", "0x48");
  ScopedEnv link("FAKE_NVML_PCIE_1", "5,8,5,16,5");
  ScopedEnv persistence("FAKE_NVML_PERSISTENCE_0", "0");
  ScopedEnv fabric("FAKE_NVML_FABRIC_0", "1,0,0,0");
  gd::HelperRequest request = gd::test::fake_request();
  request.check_inforom = true;
  gd::FactSet facts = health_facts(request);
  const std::string gpu0 = "GPU 0 (00000000:18:00.0)";
  const std::string gpu1 = "GPU 1 (00000000:19:00.0)";
  CHECK(list_of(facts, "nvml.health.remap_pending"_fact) == std::vector<std::string>{gpu1 + ": 3 uncorrectable rows remapped"});
  CHECK(list_of(facts, "nvml.health.remap_failed"_fact) == std::vector<std::string>{gpu1});
  CHECK(list_of(facts, "nvml.health.remap_exhausted"_fact) == std::vector<std::string>{gpu1 + ": 2 memory bank(s) with no spare row left"});
  CHECK(list_of(facts, "nvml.health.ecc_uncorrected_volatile"_fact) == std::vector<std::string>{gpu1 + ": 2 since the driver loaded"});
  CHECK(list_of(facts, "nvml.health.ecc_uncorrected_aggregate"_fact) == std::vector<std::string>{gpu0 + ": 1 in its lifetime"});
  CHECK(list_of(facts, "nvml.health.recovery_actions"_fact) == std::vector<std::string>{gpu1 + ": GPU_RESET (1)"});
  CHECK(list_of(facts, "nvml.health.recovery_action_codes"_fact) == std::vector<std::string>{"1"});
  CHECK(list_of(facts, "nvml.health.inforom_corrupt"_fact) == std::vector<std::string>{gpu0});
  CHECK(facts.get_bool("nvml.device.0.inforom_valid"_fact) == false);
  CHECK(list_of(facts, "nvml.health.compute_prohibited"_fact) == std::vector<std::string>{gpu0});
  CHECK(list_of(facts, "nvml.health.mig_pending"_fact) == std::vector<std::string>{gpu1 + ": MIG turns on at the next reset"});
  CHECK(list_of(facts, "nvml.health.clocks_slowdown"_fact) == std::vector<std::string>{gpu0 + ": HW slowdown, HW thermal slowdown"});
  CHECK(list_of(facts, "nvml.health.pcie_degraded"_fact) == std::vector<std::string>{gpu1 + ": gen 5 x8 of gen 5 x16"});
  CHECK(list_of(facts, "nvml.health.persistence_off"_fact) == std::vector<std::string>{gpu0});
  CHECK(list_of(facts, "nvml.health.fabric_not_registered"_fact) ==
        std::vector<std::string>{gpu0 + ": not registered with the fabric manager (state not started)"});
  CHECK(facts.get_string("nvml.health.remap_failed_gpus"_fact) == "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
}

TEST_CASE("nvml health: the InfoROM is validated only when asked; a query answering 14 says enough",
          "[probes][nvml_health]") {
  SECTION("not asked") {
    gd::FactSet facts = health_facts();
    CHECK(state_of(facts, "nvml.device.0.inforom_valid"_fact) == gd::FactState::unknown);
    CHECK(reason_of(facts, "nvml.device.0.inforom_valid"_fact).find("--check-inforom") != std::string::npos);
    CHECK(list_of(facts, "nvml.health.inforom_corrupt"_fact).empty());
  }
  SECTION("asked, valid") {
    gd::HelperRequest request = gd::test::fake_request();
    request.check_inforom = true;
    CHECK(health_facts(request).get_bool("nvml.device.0.inforom_valid"_fact) == true);
  }
  SECTION("not asked, but the ECC counters answer CORRUPTED_INFOROM") {
    ScopedEnv corrupted("FAKE_NVML_CORRUPTED_INFOROM", "nvmlDeviceGetTotalEccErrors");
    gd::FactSet facts = health_facts();
    CHECK(facts.get_bool("nvml.device.0.inforom_valid"_fact) == false);
    CHECK(list_of(facts, "nvml.health.inforom_corrupt"_fact) ==
          std::vector<std::string>{"GPU 0 (00000000:18:00.0): a query answered NVML_ERROR_CORRUPTED_INFOROM"});
  }
}

TEST_CASE("nvml health: HW slowdown alone in one reading is no slowdown", "[probes][nvml_health]") {
  // nvml.h: HW slowdown "may be also reported during PState or clock change"; nvidia-smi: it is
  // active if HW thermal slowdown or the HW power brake is.
  SECTION("alone") {
    ScopedEnv clocks("FAKE_NVML_CLOCKS_REASONS", "0x8");
    CHECK(list_of(health_facts(), "nvml.health.clocks_slowdown"_fact).empty());
  }
  SECTION("with the power brake") {
    ScopedEnv clocks("FAKE_NVML_CLOCKS_REASONS", "0x88");
    CHECK(list_of(health_facts(), "nvml.health.clocks_slowdown"_fact) ==
          std::vector<std::string>{"GPU 0 (00000000:18:00.0): HW slowdown, HW power brake"});
  }
}

TEST_CASE("nvml health: an idle GPU's narrow link is power saving, not a fault", "[probes][nvml_health]") {
  ScopedEnv link("FAKE_NVML_PCIE", "1,16,5,16,5");
  ScopedEnv idle("FAKE_NVML_PSTATE", "8");
  gd::FactSet facts = health_facts();
  CHECK(list_of(facts, "nvml.health.pcie_degraded"_fact).empty());
  CHECK(facts.get_int("nvml.device.0.pcie.gen"_fact) == 1);
}

TEST_CASE("nvml health: exclusive mode is a finding only with another process on the GPU", "[probes][nvml_health]") {
  ScopedEnv mode("FAKE_NVML_COMPUTE_MODE", "3");
  SECTION("alone") {
    CHECK(list_of(health_facts(), "nvml.health.compute_exclusive_busy"_fact).empty());
  }
  SECTION("held by pid 4242: the helper's context is refused") {
    ScopedEnv processes("FAKE_NVML_PROCESSES", "4242");
    ScopedEnv refused("FAKE_CUDA_CONTEXT_RESULT", "46");  // CUDA_ERROR_DEVICE_UNAVAILABLE
    gd::FactSet facts = health_facts();
    CHECK(list_of(facts, "nvml.health.compute_exclusive_busy"_fact) ==
          std::vector<std::string>{"GPU 0 (00000000:18:00.0): 1 other process(es): pid 4242"});
    CHECK(facts.get_string("nvml.device.0.process_pids"_fact) == "4242");
  }
  SECTION("a pid NVML lists while the helper's own context was admitted") {
    // In a container NVML gives host pids, so the helper itself shows as pid 4242; under MPS the
    // server is listed and the clients' contexts still work. Neither holds the GPU against us.
    ScopedEnv processes("FAKE_NVML_PROCESSES", "4242");
    gd::FactSet facts = health_facts();
    CHECK(list_of(facts, "nvml.health.compute_exclusive_busy"_fact).empty());
    CHECK(facts.get_int("nvml.device.0.processes"_fact) == 1);
  }
}

TEST_CASE("nvml health: banks without spare rows but no uncorrectable remapping are no exhaustion",
          "[probes][nvml_health]") {
  // Only uncorrectable remappings use up reserved rows (nvidia-smi, Bank Remap Availability Histogram).
  ScopedEnv histogram("FAKE_NVML_REMAP_HISTOGRAM", "0,0,0,0,3072");
  SECTION("no uncorrectable remapping") {
    ScopedEnv remap("FAKE_NVML_REMAP", "0,0,0,0");
    CHECK(list_of(health_facts(), "nvml.health.remap_exhausted"_fact).empty());
  }
  SECTION("with uncorrectable remappings") {
    ScopedEnv remap("FAKE_NVML_REMAP", "0,24,0,0");
    CHECK(list_of(health_facts(), "nvml.health.remap_exhausted"_fact) ==
          std::vector<std::string>{"GPU 0 (00000000:18:00.0): 3072 memory bank(s) with no spare row left"});
  }
}

TEST_CASE("nvml health: a registered fabric with degraded health", "[probes][nvml_health]") {
  // state completed, status 0, health mask: bandwidth degraded (field 0 = 1) and route unhealthy (field 2 = 1)
  ScopedEnv fabric("FAKE_NVML_FABRIC", "3,0,0x11,3");
  gd::FactSet facts = health_facts();
  CHECK(list_of(facts, "nvml.health.fabric_not_registered"_fact).empty());
  CHECK(list_of(facts, "nvml.health.fabric_degraded"_fact) ==
        std::vector<std::string>{"GPU 0 (00000000:18:00.0): bandwidth degraded, route unhealthy, limited capacity"});
  CHECK(facts.get_string("nvml.device.0.fabric.state"_fact) == "completed");
}

TEST_CASE("nvml health: the NVLink domain and partition of registered GPUs (helper 1.4)", "[probes][nvml_health]") {
  // Two GPUs of one multi-node NVLink domain, GPU 1 in another partition: what the fleet compares.
  ScopedEnv count("FAKE_NVML_DEVICE_COUNT", "3");
  ScopedEnv cuda_count("FAKE_CUDA_DEVICE_COUNT", "3");
  ScopedEnv fabric("FAKE_NVML_FABRIC", "3,0,0,0");
  ScopedEnv not_yet("FAKE_NVML_FABRIC_2", "2,0,0,0");  // registration in progress: no domain yet
  ScopedEnv cluster("FAKE_NVML_FABRIC_CLUSTER", "5c1e2f0a-77d4-4b1e-9a0e-0123456789ab");
  ScopedEnv clique("FAKE_NVML_FABRIC_CLIQUE_1", "7");
  gd::FactSet facts = health_facts();
  CHECK(facts.get_string("nvml.device.0.fabric.cluster_uuid"_fact) == "5c1e2f0a-77d4-4b1e-9a0e-0123456789ab");
  CHECK(facts.get_string("nvml.device.1.fabric.cluster_uuid"_fact) == "5c1e2f0a-77d4-4b1e-9a0e-0123456789ab");
  CHECK(facts.get_int("nvml.device.0.fabric.clique_id"_fact) == 32766);
  CHECK(facts.get_int("nvml.device.1.fabric.clique_id"_fact) == 7);
  CHECK(facts.find("nvml.device.2.fabric.cluster_uuid"_fact) == nullptr);  // in progress: NVML's UUID means nothing yet
  CHECK(facts.get_string("nvml.device.2.fabric.state"_fact) == "in-progress");
}

TEST_CASE("nvml health: a 1.3 reply of a registered GPU has no cluster UUID: unknown, with the reason",
          "[probes][nvml_health]") {
  auto reply = gd::parse_helper_reply(
      "gpudoctor-helper\t1.3\nnvml.dlopen\tok\nnvml.init.result\t0\nnvml.device_count\t1\n"
      "nvml.device.0.pci_bus_id\t00000000:18:00.0\nnvml.device.0.fabric.state\t3\nnvml.device.0.fabric.status\t0\n"
      "nvml.device.0.fabric.clique_id\t32766\nnvml.stage\tdone\nend\tok\n");
  REQUIRE(reply);
  gd::FactSet facts;
  gd::record_nvml_health(*reply, facts);
  CHECK(state_of(facts, "nvml.device.0.fabric.cluster_uuid"_fact) == gd::FactState::unknown);
  CHECK(facts.get_int("nvml.device.0.fabric.clique_id"_fact) == 32766);
}

TEST_CASE("nvml health: an all-zero cluster UUID (a single-node NVSwitch system) is no NVLink domain",
          "[probes][nvml_health]") {
  // HGX H100 with the fabric manager: registered (state completed), clusterUuid all zero. Every such
  // node would "share" it; the fleet must not read them as one multi-node domain.
  ScopedEnv fabric("FAKE_NVML_FABRIC", "3,0,0,0");
  ScopedEnv cluster("FAKE_NVML_FABRIC_CLUSTER", "00000000-0000-0000-0000-000000000000");
  ScopedEnv clique("FAKE_NVML_FABRIC_CLIQUE", "0");
  gd::FactSet facts = health_facts();
  CHECK(state_of(facts, "nvml.device.0.fabric.cluster_uuid"_fact) == gd::FactState::absent);
  CHECK(facts.get_string("nvml.device.0.fabric.state"_fact) == "completed");
  CHECK(facts.get_int("nvml.device.0.fabric.clique_id"_fact) == 0);
}

TEST_CASE("nvml health: MIG on with no instance CUDA can see", "[probes][nvml_health]") {
  ScopedEnv mig("FAKE_NVML_MIG", "1,1");
  ScopedEnv no_device("FAKE_CUDA_INIT_RESULT", "100");
  gd::FactSet facts = health_facts();
  CHECK(list_of(facts, "nvml.health.mig_without_cuda_device"_fact) ==
        std::vector<std::string>{"GPU 0 (00000000:18:00.0): no MIG device (GPU instance with a compute instance)"});
  CHECK(facts.get_int("nvml.device.0.mig.devices"_fact) == 0);
}

TEST_CASE("nvml health: one CUDA process sees one MIG device; the other MIG GPUs are not 'without instances'",
          "[probes][nvml_health]") {
  // Eight GPUs in MIG mode with two MIG devices each; CUDA enumerates one MIG device (the MIG user
  // guide: one CUDA process enumerates a single MIG device), on GPU 0's bus.
  ScopedEnv nvml_count("FAKE_NVML_DEVICE_COUNT", "8");
  ScopedEnv cuda_count("FAKE_CUDA_DEVICE_COUNT", "1");
  ScopedEnv mig("FAKE_NVML_MIG", "1,1");
  ScopedEnv devices("FAKE_NVML_MIG_DEVICES", "2");
  SECTION("every GPU has its MIG devices") {
    gd::FactSet facts = health_facts();
    CHECK(list_of(facts, "nvml.health.mig_without_cuda_device"_fact).empty());
    CHECK(facts.get_int("nvml.device.7.mig.devices"_fact) == 2);
    CHECK(list_of(facts, "nvml.device.7.mig.device_uuids"_fact).size() == 2);
    CHECK(list_of(facts, "nvml.device.7.mig.device_uuids"_fact).front().starts_with("MIG-"));
  }
  SECTION("GPU 5 has none") {
    ScopedEnv none("FAKE_NVML_MIG_DEVICES_5", "0");
    gd::FactSet facts = health_facts();
    CHECK(list_of(facts, "nvml.health.mig_without_cuda_device"_fact) ==
          std::vector<std::string>{"GPU 5 (00000000:1D:00.0): no MIG device (GPU instance with a compute instance)"});
  }
  SECTION("CUDA found no device at all, and no CUDA_VISIBLE_DEVICES explains it") {
    ScopedEnv no_device("FAKE_CUDA_INIT_RESULT", "100");
    gd::FactSet facts = health_facts();
    CHECK(list_of(facts, "nvml.health.mig_without_cuda_device"_fact).size() == 8);
    CHECK(list_of(facts, "nvml.health.mig_without_cuda_device"_fact).front() ==
          "GPU 0 (00000000:18:00.0): 2 MIG device(s), none of which CUDA could use");
  }
}

TEST_CASE("nvml health: a GPU that CUDA did not enumerate was not tried, whoever holds it", "[probes][nvml_health]") {
  // Exclusive_Process on all eight, CUDA_VISIBLE_DEVICES=0 (CUDA enumerates one), other jobs on 1-7.
  ScopedEnv nvml_count("FAKE_NVML_DEVICE_COUNT", "8");
  ScopedEnv cuda_count("FAKE_CUDA_DEVICE_COUNT", "1");
  ScopedEnv mode("FAKE_NVML_COMPUTE_MODE", "3");
  ScopedEnv others("FAKE_NVML_PROCESSES", "5001");
  ScopedEnv mine("FAKE_NVML_PROCESSES_0", "0");
  gd::FactSet facts = health_facts();
  CHECK(list_of(facts, "nvml.health.compute_exclusive_busy"_fact).empty());
  CHECK(state_of(facts, "nvml.health.compute_exclusive_busy_gpus"_fact) == gd::FactState::absent);
  CHECK(facts.get_int("nvml.device.3.processes"_fact) == 1);
}

TEST_CASE("nvml health: the memory in use and what each process holds", "[probes][nvml_health]") {
  ScopedEnv processes("FAKE_NVML_PROCESSES", "4242,4243");
  ScopedEnv held("FAKE_NVML_PROCESS_MIB", "70000");
  ScopedEnv memory("FAKE_NVML_MEMORY", "143753,143771");
  gd::FactSet facts = health_facts();
  CHECK(facts.get_int("nvml.device.0.memory.used_mib"_fact) == 143753);
  CHECK(facts.get_int("nvml.device.0.memory.total_mib"_fact) == 143771);
  std::vector<std::string> list = list_of(facts, "nvml.device.0.process_list"_fact);
  REQUIRE(list.size() == 2);
  // The name is there only where the helper shares the host's PID namespace (kthreadd is pid 2).
  CHECK(list[0].starts_with("pid 4242"));
  CHECK(list[0].ends_with(": 70000 MiB"));
  CHECK(list[1].starts_with("pid 4243"));
  SECTION("NVML cannot tell a process's memory") {
    ScopedEnv unknown("FAKE_NVML_PROCESS_MIB", "-1");
    CHECK_FALSE(list_of(health_facts(), "nvml.device.0.process_list"_fact)[0].ends_with("MiB"));
  }
}

TEST_CASE("nvml health: GeForce-like NOT_SUPPORTED answers give unknown facts and empty sums", "[probes][nvml_health]") {
  ScopedEnv unsupported("FAKE_NVML_NOT_SUPPORTED", "all");
  gd::FactSet facts = health_facts();
  for (const std::string& sum : k_sums) {
    INFO(sum);
    CHECK(list_of(facts, sum).empty());
  }
  CHECK(state_of(facts, "nvml.device.0.ecc.enabled"_fact) == gd::FactState::unknown);
  CHECK(state_of(facts, "nvml.device.0.remap.pending"_fact) == gd::FactState::unknown);
}

TEST_CASE("nvml health: an NVML without the health entry points leaves the sums unknown", "[probes][nvml_health]") {
  gd::HelperRequest request = gd::test::fake_request();
  request.libnvml_path = std::string(GD_TEST_FAKES_DIR) + "/libnvidia-ml-old.so.1";
  gd::FactSet facts = health_facts(request);
  for (const std::string& sum : k_sums) {
    INFO(sum);
    // The InfoROM is judged from answers of 14 unless validated (--check-inforom): none came.
    CHECK(state_of(facts, sum) == (sum == "nvml.health.inforom_corrupt" ? gd::FactState::present : gd::FactState::unknown));
  }
  CHECK(reason_of(facts, "nvml.health.remap_pending"_fact).find("missing symbol nvmlDeviceGetRemappedRows") != std::string::npos);
}

TEST_CASE("nvml health: a capture of the protocol 1.0 helper says it predates the checks", "[probes][nvml_health]") {
  auto reply = gd::parse_helper_reply("gpudoctor-helper\t1\nnvml.init.result\t0\nnvml.device_count\t1\nend\tok\n");
  REQUIRE(reply);
  gd::FactSet facts;
  gd::record_nvml_health(*reply, facts);
  CHECK(reason_of(facts, "nvml.health.remap_failed"_fact).find("protocol 1.0") != std::string::npos);
}

}  // namespace GD_UNITY_ID
