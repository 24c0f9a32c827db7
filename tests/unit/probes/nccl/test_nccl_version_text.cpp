#include "probes/nccl/nccl_version_text.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace GD_UNITY_ID {

namespace {

// The head of nvidia_nccl_cu12-2.27.3.dist-info/METADATA as the wheel on PyPI writes it (core
// metadata 2.1: header lines, an empty line, then the description).
constexpr std::string_view k_wheel_metadata =
    "Metadata-Version: 2.1\n"
    "Name: nvidia-nccl-cu12\n"
    "Version: 2.27.3\n"
    "Summary: NVIDIA Collective Communication Library (NCCL) Runtime\n"
    "Home-page: https://developer.nvidia.com/cuda-zone\n"
    "Author: Nvidia CUDA Installer Team\n"
    "Author-email: compute_installer@nvidia.com\n"
    "License: NVIDIA Proprietary Software\n"
    "Keywords: cuda,nvidia,runtime,machine learning,deep learning\n"
    "Classifier: Development Status :: 4 - Beta\n"
    "Requires-Python: >=3\n"
    "License-File: License.txt\n"
    "\n"
    "NCCL (pronounced \"Nickel\") is a stand-alone library of standard collective communication routines for GPUs.\n"
    "Version: 9.9.9 in the description is not the header\n";

}  // namespace

TEST_CASE("nccl version text: a wheel's METADATA gives its Version field", "[nccl][version]") {
  CHECK(gd::metadata_version(k_wheel_metadata) == "2.27.3");
  // CRLF line ends (a wheel built on Windows) read the same.
  CHECK(gd::metadata_version("Metadata-Version: 2.1\r\nName: nvidia-nccl-cu13\r\nVersion: 2.28.9\r\n\r\nbody\r\n") == "2.28.9");
}

TEST_CASE("nccl version text: a METADATA without a usable Version is no version", "[nccl][version][hostile]") {
  CHECK_FALSE(gd::metadata_version(""));
  CHECK_FALSE(gd::metadata_version("\x7f" "ELF\x02\x01\x01 binary garbage\nVersion 2.27.3\n"));
  CHECK_FALSE(gd::metadata_version("Name: nvidia-nccl-cu12\nVersion: two\n"));
  CHECK_FALSE(gd::metadata_version("Name: nvidia-nccl-cu12\nVersion: 2.27.3; rm -rf /\n"));
  CHECK_FALSE(gd::metadata_version("Name: x\n\nVersion: 2.27.3\n"));  // only in the body
  CHECK_FALSE(gd::metadata_version("Version: " + std::string(100000, '9') + "\n"));
}

TEST_CASE("nccl version text: a packaged library's real file name carries its release", "[nccl][version]") {
  CHECK(gd::version_from_nccl_file_name("libnccl.so.2.27.3") == "2.27.3");
  CHECK(gd::version_from_nccl_file_name("libnccl.so.2.21.5") == "2.21.5");
  CHECK_FALSE(gd::version_from_nccl_file_name("libnccl.so.2"));  // the soname link, and the wheel's file
  CHECK_FALSE(gd::version_from_nccl_file_name("libnccl.so"));
  CHECK_FALSE(gd::version_from_nccl_file_name("libnccl-net.so"));
  CHECK_FALSE(gd::version_from_nccl_file_name("libnccl.so.2.27.3.bak-old"));
}

TEST_CASE("nccl version text: the string NCCL compiles in", "[nccl][version]") {
  // init.cc VERSION_STRING: "NCCL version " MAJOR "." MINOR "." PATCH SUFFIX "+cuda" CUDA_MAJOR "." CUDA_MINOR.
  std::string rodata = std::string("\0%s\n\0", 5) + "NCCL version 2.27.3+cuda12.9" + std::string("\0NCCL_DEBUG\0", 12);
  CHECK(gd::version_from_marker(rodata) == "2.27.3");
  // A format string with the same words comes first in some builds: the next one with a release counts.
  CHECK(gd::version_from_marker("NCCL version %s\nxx NCCL version 2.21.5+cuda12.4") == "2.21.5");
  CHECK_FALSE(gd::version_from_marker("NCCL version %d.%d.%d"));
  CHECK_FALSE(gd::version_from_marker(""));
}

TEST_CASE("nccl version text: releases compare part by part", "[nccl][version]") {
  CHECK(gd::compare_releases("2.25.1", "2.26.2") == -1);
  CHECK(gd::compare_releases("2.26.2", "2.26.2") == 0);
  CHECK(gd::compare_releases("2.27.3", "2.26.2") == 1);
  CHECK(gd::compare_releases("2.9.9", "2.10.3") == -1);  // numerically, not as text
  CHECK_FALSE(gd::compare_releases("unknown", "2.26.2"));
}

}  // namespace GD_UNITY_ID
