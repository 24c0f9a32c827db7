#include <catch2/catch.hpp>
#include <cerrno>

#include "core/fact_key.hpp"
#include "probes/driver/kernel_module_files.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"
#include "tiny_elf.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::Capture;
using gd::FactSet;
using gd::FactState;
using gd::test::TinyElf;

namespace {

constexpr const char* k_release = "6.8.0-45-generic";
const std::string k_base = std::string("/lib/modules/") + k_release;

/// A host running kernel k_release, with its modules folder and kernel headers.
Capture host_running() {
  Capture capture;
  capture.identity = gd::Identity{0, 0, {}};
  capture.uname = gd::Uname{"Linux", "gpu1", k_release, "#45-Ubuntu SMP", "x86_64"};
  capture.paths[k_base + "/modules.dep"].read = std::string("kernel/fs/ext4/ext4.ko.zst: kernel/lib/crc16.ko.zst\n");
  capture.paths[k_base + "/build"].stat = gd::FileStat{gd::FileKind::directory, 0755, 0, 0, 0, 0, 0};
  return capture;
}

FactSet run(Capture capture, const std::string& loaded_version) {
  gd::ReplayHost host(std::move(capture));
  FactSet facts;
  if (loaded_version.empty()) {
    facts.set("kmod.nvidia.loaded"_fact, false);
    facts.set_absent("kmod.nvidia.version"_fact);
  } else {
    facts.set("kmod.nvidia.loaded"_fact, true);
    facts.set("kmod.nvidia.version"_fact, loaded_version);
  }
  gd::record_module_files(host, facts);
  return facts;
}

std::string text(const FactSet& facts, gd::FactName name) { return facts.get_string(gd::FactName::unchecked(name)).value_or("(not a string)"); }

}  // namespace

TEST_CASE("module file names", "[probes][kernel_module_files]") {
  CHECK(gd::nvidia_module_compression("nvidia.ko") == "");
  CHECK(gd::nvidia_module_compression("nvidia.ko.zst") == "zst");
  CHECK(gd::nvidia_module_compression("nvidia.ko.xz") == "xz");
  CHECK_FALSE(gd::nvidia_module_compression("nvidia-uvm.ko"));
  CHECK_FALSE(gd::nvidia_module_compression("nvidia.ko.bak"));
}

TEST_CASE("modules.dep lines naming nvidia.ko", "[probes][kernel_module_files]") {
  auto found = gd::nvidia_modules_in_modules_dep(
      "kernel/drivers/gpu/drm/nouveau/nouveau.ko.zst: kernel/drivers/video/fbdev/core/fb.ko.zst\n"
      "updates/dkms/nvidia.ko.zst:\n"
      "updates/dkms/nvidia-uvm.ko.zst: updates/dkms/nvidia.ko.zst\n"
      "/lib/modules/5.4.0/kernel/drivers/video/nvidia.ko:\n");
  CHECK(found ==
        std::vector<std::string>{"updates/dkms/nvidia.ko.zst", "/lib/modules/5.4.0/kernel/drivers/video/nvidia.ko"});
}

TEST_CASE("module files: DKMS open module, same as the loaded one", "[probes][kernel_module_files]") {
  Capture capture = host_running();
  capture.paths[k_base + "/updates/dkms/nvidia.ko"].read = TinyElf{}.build();
  capture.paths[k_base + "/updates/dkms/nvidia-uvm.ko"].read = std::string("not read");
  FactSet facts = run(std::move(capture), "580.159.04");
  CHECK(text(facts, "kmod.nvidia.disk_path"_fact) == k_base + "/updates/dkms/nvidia.ko");
  CHECK(text(facts, "kmod.nvidia.disk_version"_fact) == "580.159.04");
  CHECK(text(facts, "kmod.nvidia.disk_license"_fact) == "Dual MIT/GPL");
  CHECK(text(facts, "kmod.nvidia.disk_flavor"_fact) == "open");
  CHECK_THAT(text(facts, "kmod.nvidia.disk_vermagic"_fact), Catch::StartsWith("6.8.0-45-generic SMP"));
  CHECK(facts.get_bool("kmod.nvidia.disk_signed"_fact) == false);
  CHECK(facts.get_bool("kmod.nvidia.disk_version_matches"_fact) == true);
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == true);
  CHECK(facts.get_bool("kmod.kernel_headers_installed"_fact) == true);
}

TEST_CASE("module files: a newer proprietary module waits for a reboot", "[probes][kernel_module_files]") {
  TinyElf proprietary;
  proprietary.modinfo = {"license=NVIDIA", "version=550.127.05", "vermagic=6.8.0-45-generic SMP mod_unload "};
  proprietary.signed_marker = true;
  Capture capture = host_running();
  capture.paths[k_base + "/kernel/nvidia-550srv/nvidia.ko"].read = proprietary.build();
  capture.paths[k_base + "/kernel/drivers/video/nvidia.ko.zst"].read = std::string("(zstd)");
  FactSet facts = run(std::move(capture), "550.90.07");
  CHECK(text(facts, "kmod.nvidia.disk_version"_fact) == "550.127.05");
  CHECK(text(facts, "kmod.nvidia.disk_flavor"_fact) == "proprietary");
  CHECK(facts.get_bool("kmod.nvidia.disk_signed"_fact) == true);
  CHECK(facts.get_bool("kmod.nvidia.disk_version_matches"_fact) == false);
  auto files = std::get<std::vector<std::string>>(facts.find("kmod.nvidia.disk_files"_fact)->value);
  CHECK(files == std::vector<std::string>{k_base + "/kernel/nvidia-550srv/nvidia.ko 550.127.05",
                                          k_base + "/kernel/drivers/video/nvidia.ko.zst (compressed .zst, not read)"});
}

TEST_CASE("module files: compressed modules are reported as not read", "[probes][kernel_module_files]") {
  Capture capture = host_running();
  capture.paths[k_base + "/extra/nvidia/nvidia.ko.xz"].read = std::string(
      "\xfd"
      "7zXZ",
      5);
  FactSet facts = run(std::move(capture), "");
  CHECK(text(facts, "kmod.nvidia.disk_path"_fact) == k_base + "/extra/nvidia/nvidia.ko.xz");
  const gd::Fact* version = facts.find("kmod.nvidia.disk_version"_fact);
  REQUIRE(version);
  CHECK(version->state == FactState::unknown);
  CHECK(version->reason == "compressed (.xz), not read");
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == true);
}

TEST_CASE("module files: none for the running kernel", "[probes][kernel_module_files]") {
  Capture capture = host_running();
  // A module built for the previous kernel only, and DKMS that knows the driver.
  capture.paths["/lib/modules/6.8.0-40-generic/updates/dkms/nvidia.ko"].read = TinyElf{}.build();
  capture.paths["/var/lib/dkms/nvidia/580.159.04/source"].link = std::string("/usr/src/nvidia-580.159.04");
  capture.paths[k_base + "/build"].stat = std::unexpected(gd::IoError{ENOENT});
  FactSet facts = run(std::move(capture), "");
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == false);
  CHECK(facts.find("kmod.nvidia.disk_version"_fact)->state == FactState::absent);
  CHECK(facts.get_bool("kmod.kernel_headers_installed"_fact) == false);
  CHECK(std::get<std::vector<std::string>>(facts.find("kmod.nvidia.dkms_modules"_fact)->value) ==
        std::vector<std::string>{"nvidia/580.159.04"});
}

TEST_CASE("module files: found through modules.dep outside the usual folders", "[probes][kernel_module_files]") {
  Capture capture = host_running();
  capture.paths[k_base + "/modules.dep"].read = std::string("kernel/drivers/gpu/nvidia/nvidia.ko:\n");
  capture.paths[k_base + "/kernel/drivers/gpu/nvidia/nvidia.ko"].read = TinyElf{}.build();
  FactSet facts = run(std::move(capture), "");
  CHECK(text(facts, "kmod.nvidia.disk_version"_fact) == "580.159.04");
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == true);
  CHECK(facts.find("kmod.nvidia.disk_version_matches"_fact)->state == FactState::absent);
}

TEST_CASE("module files: a container without /lib/modules", "[probes][kernel_module_files]") {
  Capture capture;
  capture.uname = gd::Uname{"Linux", "vm", "6.18.44-fc-v657-gpu", "#1", "x86_64"};
  FactSet facts = run(std::move(capture), "580.159.04");
  CHECK(facts.find("kmod.nvidia.disk_version"_fact)->state == FactState::absent);
  CHECK(facts.find("kmod.nvidia.disk_version_matches"_fact)->state == FactState::absent);
  CHECK(facts.get_bool("kmod.nvidia.built_for_running_kernel"_fact) == true);  // the module is loaded
  CHECK(facts.find("kmod.kernel_headers_installed"_fact)->state == FactState::absent);
  CHECK(facts.find("kmod.nvidia.dkms_modules"_fact)->state == FactState::absent);
}

TEST_CASE("module files: a real folder tree read through --root", "[probes][kernel_module_files]") {
  gd::test::TempTree tree;
  gd::RealHost host(tree.root(), {});
  const std::string base = "/lib/modules/" + host.uname().release;
  TinyElf elf;
  elf.signed_marker = true;
  tree.file(base + "/updates/dkms/nvidia.ko", elf.build());
  tree.dir(base + "/kernel/drivers/video");
  tree.link(base + "/build", "/usr/src/linux-headers");
  tree.dir("/usr/src/linux-headers");
  FactSet facts;
  facts.set("kmod.nvidia.loaded"_fact, true);
  facts.set("kmod.nvidia.version"_fact, std::string("570.124.06"));
  gd::record_module_files(host, facts);
  CHECK(text(facts, "kmod.nvidia.disk_version"_fact) == "580.159.04");
  CHECK(facts.get_bool("kmod.nvidia.disk_signed"_fact) == true);
  CHECK(facts.get_bool("kmod.nvidia.disk_version_matches"_fact) == false);
  CHECK(facts.get_bool("kmod.kernel_headers_installed"_fact) == true);
}

}  // namespace GD_UNITY_ID
