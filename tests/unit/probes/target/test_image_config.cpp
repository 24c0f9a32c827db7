// The image's variables for a pre-flight (issue 18), from the three layouts users have at hand,
// reduced to the allowlist: a token in an image's configuration never reaches a report.

#include <catch2/catch.hpp>

#include "probes/target/image_config.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

// As `skopeo inspect --config docker://nvcr.io/nvidia/cuda:12.8.0-base-ubuntu24.04` prints it
// (abridged: the variables and the layout are the image's).
constexpr std::string_view k_oci_image_config = R"({
  "architecture": "amd64", "os": "linux",
  "config": {
    "Env": ["PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "NVARCH=x86_64",
            "NVIDIA_REQUIRE_CUDA=cuda>=12.8 brand=unknown,driver>=470,driver<471 brand=tesla,driver>=535,driver<536",
            "NV_CUDA_CUDART_VERSION=12.8.57-1", "CUDA_VERSION=12.8.0",
            "LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64",
            "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility",
            "HF_TOKEN=hf_abcdefghijklmnop"]
  },
  "rootfs": {"type": "layers", "diff_ids": []}
})";

}  // namespace

TEST_CASE("image config: an OCI image configuration", "[target]") {
  auto env = gd::parse_image_config(k_oci_image_config, "config.json");
  REQUIRE(env);
  CHECK(env->at("NVIDIA_REQUIRE_CUDA").starts_with("cuda>=12.8 brand=unknown"));
  CHECK(env->at("NVIDIA_DRIVER_CAPABILITIES") == "compute,utility");
  CHECK(env->at("LD_LIBRARY_PATH") == "/usr/local/nvidia/lib:/usr/local/nvidia/lib64");
  CHECK(env->at("CUDA_VERSION") == "12.8.0");
  CHECK(env->count("HF_TOKEN") == 0);  // never read
}

TEST_CASE("image config: a runtime bundle and docker inspect", "[target]") {
  auto bundle = gd::parse_image_config(R"({"ociVersion": "1.0.2", "process": {"env": ["NVIDIA_VISIBLE_DEVICES=void", "A_TOKEN=x"]}})",
                                       "bundle/config.json");
  REQUIRE(bundle);
  CHECK(bundle->at("NVIDIA_VISIBLE_DEVICES") == "void");
  CHECK(bundle->size() == 1);
  auto inspect = gd::parse_image_config(R"([{"Id": "sha256:0", "Config": {"Env": ["CUDA_VERSION=13.0.1"]}}])", "inspect.json");
  REQUIRE(inspect);
  CHECK(inspect->at("CUDA_VERSION") == "13.0.1");
  auto none = gd::parse_image_config(R"({"config": {"Cmd": ["bash"]}})", "c.json");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("image config: bad input names the file", "[target]") {
  for (std::string_view text : {std::string_view("not json"), std::string_view(R"({"layers": []})"),
                                std::string_view(R"({"config": {"Env": "PATH=/bin"}})"),
                                std::string_view(R"({"config": {"Env": [42]}})"),
                                std::string_view(R"({"config": {"Env": ["=value"]}})"), std::string_view("[]"),
                                std::string_view(R"({"config": {"Env": ["NOEQUALS"]}})")}) {
    INFO(text);
    auto env = gd::parse_image_config(text, "/images/x/config.json");
    REQUIRE_FALSE(env);
    CHECK_THAT(env.error(), Catch::StartsWith("/images/x/config.json: "));
  }
}

}  // namespace GD_UNITY_ID
