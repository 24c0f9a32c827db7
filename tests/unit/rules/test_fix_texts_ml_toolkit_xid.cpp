// Fix and why texts of the ml, toolkit and xid rules that were wrong once (issue 11): each case
// runs a fixture of tests/rules/<id>/ through the whole rule set and checks what the finding
// tells the user to do, placeholders filled. A fixture's "expect" only sees the message.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fixture_finding.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::test::all_fix_lines;
using gd::test::finding_on;
using gd::test::has;

TEST_CASE("toolkit.host-compiler-unsupported sets CC and CXX, not only NVCC_CCBIN", "[rules][fixtures][fix-text]") {
  // torch.utils.cpp_extension passes $CC to nvcc as -ccbin, which overrides NVCC_CCBIN, and checks
  // $CXX against its own CUDA_GCC_VERSIONS table before nvcc runs.
  gd::Finding finding = finding_on("toolkit.host-compiler-unsupported", "positive/gcc15-cuda124.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK(has(finding.fix.front(), "export CC=gcc-13 CXX=g++-13"));
  CHECK(has(fix, "sudo apt install gcc-13 g++-13"));
  CHECK(has(finding.why, "overrides NVCC_CCBIN"));
}

TEST_CASE("ml.torch-no-kernel-for-gpu tells the wheel history as PyTorch corrected it", "[rules][fixtures][fix-text]") {
  // cu128 never carried Maxwell or Pascal (2.7 started at sm_75) and 2.8 put Volta back
  // (pytorch#160269, .ci/manywheel/build_cuda.sh); the 2.8 release note that said otherwise was corrected.
  gd::Finding finding = finding_on("ml.torch-no-kernel-for-gpu", "positive/rtx5090-torch26-cu124.json");
  INFO(finding.why);
  CHECK_FALSE(has(finding.why, "were dropped from cu128"));
  CHECK(has(finding.why, "No cu128, cu129 or cu130 wheel has ever carried Maxwell (sm_5x) or Pascal (sm_6x)"));
  CHECK(has(finding.why, "torch 2.8 to 2.10 put Volta (sm_70) back into cu128 and 2.11 removed it again"));
  CHECK(has(finding.fix.front(), "--index-url https://download.pytorch.org/whl/cu128"));
}

TEST_CASE("ml.nvidia-wheels-mixed-families names the leftover wheels and what uninstalling them does",
          "[rules][fixtures][fix-text]") {
  // The grep of -cu12/-cu13 names missed the unsuffixed CUDA 13 wheels, and uninstalling a leftover
  // cuDNN/NCCL deletes files the kept family shares (same folders, same sonames).
  gd::Finding finding = finding_on("ml.nvidia-wheels-mixed-families", "positive/cu12-and-cu13.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK(has(fix, "pip uninstall -y nvidia-cublas-cu12 nvidia-cudnn-cu12 (this removes packages"));
  CHECK(has(fix, "Required after the uninstall"));
  CHECK(has(finding.why, "install into the same folders"));
}

TEST_CASE("fix commands of the ml rules that did not work as written", "[rules][fixtures][fix-text]") {
  // pip uninstall has no --user option ("no such option: --user").
  std::string twice = all_fix_lines(finding_on("ml.torch-installed-twice", "positive/user-site-and-conda.json"));
  INFO(twice);
  CHECK_FALSE(has(twice, "uninstall --user"));
  CHECK(has(twice, "python3 -m pip uninstall torch"));
  // --no-binary :all: forces source builds of every dependency, torch included; flash-attn takes
  // FLASH_ATTN_CUDA_ARCHS values its setup.py handles, and downloads a wheel unless FORCE_BUILD.
  std::string ext = all_fix_lines(finding_on("ml.extension-no-kernel-for-gpu", "positive/flash-attn-without-sm120.json"));
  INFO(ext);
  CHECK_FALSE(has(ext, ":all:"));
  CHECK(has(ext, "FLASH_ATTENTION_FORCE_BUILD=TRUE"));
  // flash-attn wheels are named ...cxx11abiTRUE/FALSE, and a plain --force-reinstall swaps torch.
  std::string other = all_fix_lines(finding_on("ml.extension-built-for-other-torch", "positive/vllm-for-torch-27.json"));
  INFO(other);
  CHECK(has(other, "cxx11abi<TRUE|FALSE>"));
  CHECK(has(other, "pip install --no-deps --force-reinstall"));
  // The grep -v '/cuda' also dropped .../compat, and upgrading the wheel does not beat LD_LIBRARY_PATH.
  gd::Finding shadow = finding_on("ml.ld-library-path-shadows-wheels", "positive/cuda121-on-ld-path.json");
  std::string ld = all_fix_lines(shadow);
  INFO(ld);
  CHECK_FALSE(has(ld, "grep -v '/cuda'"));
  CHECK_FALSE(has(ld, "pip install -U nvidia-nvjitlink"));
  CHECK(shadow.severity == gd::Severity::warning);
}

TEST_CASE("xid.gsp-timeout claims no fixed 525 release and gives the initramfs commands", "[rules][fixtures][fix-text]") {
  // open-gpu-kernel-modules#446 is open with 2026 reports and #942 shows timeouts on 580.82.07.
  gd::Finding finding = finding_on("xid.gsp-timeout", "positive/xid-119.json");
  std::string fix = all_fix_lines(finding);
  INFO(fix);
  CHECK_FALSE(has(finding.why + fix, "525.105.17"));
  CHECK(has(fix, "sudo update-initramfs -u"));
  CHECK(has(fix, "sudo dracut -f"));
}

TEST_CASE("xid.contained-ecc: an Xid 94 that says RST: Yes gets the reset step", "[rules][fixtures][fix-text]") {
  // The GSP fatal-error path logs Xid 94 and marks the GPU for reset (open-gpu-kernel-modules), so
  // "new work can start without a reset" does not hold for every Xid 94.
  gd::Finding finding = finding_on("xid.contained-ecc", "positive/xid-94-asks-for-reset.json");
  INFO(finding.why);
  CHECK(has(finding.why, "RST: Yes"));
  CHECK(has(finding.fix.front(), "RST: Yes, first reset the GPU"));
}

}  // namespace GD_UNITY_ID
