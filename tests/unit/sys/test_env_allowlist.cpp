#include "sys/env_allowlist.hpp"

#include <catch2/catch.hpp>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::env_name_allowed;

TEST_CASE("env allowlist: variables that decide how CUDA loads may be read", "[sys][env_allowlist]") {
  for (const char* name : {
           "CUDA_VISIBLE_DEVICES",        // hides or renumbers GPUs
           "NVIDIA_VISIBLE_DEVICES",      // container toolkit
           "NVIDIA_DRIVER_CAPABILITIES",  //
           "LD_LIBRARY_PATH",             // which libcuda the loader maps
           "LD_PRELOAD",                  //
           "CUDA_HOME",                   //
           "CUDA_VERSION",                //
           "TORCH_CUDA_ARCH_LIST",        //
           "NCCL_DEBUG",                  //
           "PATH",                        //
           "CONDA_PREFIX",                //
           "NO_COLOR",                    //
       }) {
    CAPTURE(name);
    CHECK(env_name_allowed(name));
  }
}

TEST_CASE("env allowlist: secrets and unrelated variables are refused", "[sys][env_allowlist]") {
  for (const char* name : {
           "HF_TOKEN",                // not on the list at all
           "AWS_SECRET_ACCESS_KEY",   //
           "GITHUB_TOKEN",            //
           "HOME",                    //
           "USER",                    //
           "SSH_AUTH_SOCK",           //
           "NVIDIA_API_KEY",          // under an allowed prefix, but secret-looking
           "CUDA_AUTH_TOKEN",         //
           "NCCL_IB_PASSWORD",        //
           "NVIDIA_NGC_CREDENTIALS",  //
           "TORCH_HUB_Secret",        // markers are matched in any case
           "cuda_visible_devices",    // names are case-sensitive, as getenv is
           "LD_LIBRARY_PATH_EXTRA",   // listed names match whole, not as prefixes
           "XCUDA_VISIBLE_DEVICES",   // prefixes match at the start only
           "",                        //
       }) {
    CAPTURE(name);
    CHECK_FALSE(env_name_allowed(name));
  }
}

}  // namespace GD_UNITY_ID
