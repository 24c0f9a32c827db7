// Host::env scrubs every Host's variables (issue 24): the live environment, an image's
// configuration (ImageEnvHost), a replayed capture (ReplayHost), and what RecordingHost keeps.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sys/image_env_host.hpp"
#include "sys/real_host.hpp"
#include "sys/recording_host.hpp"
#include "sys/replay_host.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

namespace {

const std::string k_hf = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
const std::string k_aws = "AKIAIOSFODNN7EXAMPLE";
const std::string k_uuid = "GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad";

}  // namespace

TEST_CASE("host env: an image's variables are scrubbed, a GPU UUID kept", "[sys][secrets]") {
  gd::ReplayHost inner(gd::Capture{});
  gd::ImageEnvHost image(inner, {{"LD_LIBRARY_PATH", "/opt/" + k_hf + "/lib:/usr/lib"},
                                 {"PYTHONPATH", "https://u:hunter2@pypi.example.com/simple"},
                                 {"CUDA_VISIBLE_DEVICES", k_uuid + "," + k_aws}});
  gd::Host& host = image;
  CHECK(host.env("LD_LIBRARY_PATH") == "/opt/<secret>/lib:/usr/lib");
  CHECK(host.env("PYTHONPATH") == "https://u:<secret>@pypi.example.com/simple");
  CHECK(host.env("CUDA_VISIBLE_DEVICES") == k_uuid + ",<secret>");
  CHECK(host.env("CUDA_HOME") == std::nullopt);
}

TEST_CASE("host env: a capture's variables are scrubbed on replay and when recorded again", "[sys][secrets]") {
  gd::Capture capture;
  capture.env["LD_LIBRARY_PATH"] = "/opt/" + k_hf + "/lib";
  capture.env["CUDA_VISIBLE_DEVICES"] = k_uuid;
  capture.env["LD_PRELOAD"] = std::nullopt;
  gd::ReplayHost replay(std::move(capture));
  CHECK(replay.env("LD_LIBRARY_PATH") == "/opt/<secret>/lib");
  CHECK(replay.env("CUDA_VISIBLE_DEVICES") == k_uuid);
  CHECK(replay.env("LD_PRELOAD") == std::nullopt);
  CHECK_THROWS_AS(replay.env("HF_TOKEN"), std::logic_error);  // the allowlist still comes first

  gd::Capture recorded;
  gd::RecordingHost recording(replay, recorded);
  CHECK(recording.env("LD_LIBRARY_PATH") == "/opt/<secret>/lib");
  CHECK(recorded.env.at("LD_LIBRARY_PATH") == "/opt/<secret>/lib");  // the capture holds no token
}

TEST_CASE("host env: the live environment is scrubbed as before", "[sys][secrets]") {
  std::string old = std::getenv("TORCH_CUDA_ARCH_LIST") ? std::getenv("TORCH_CUDA_ARCH_LIST") : "";
  bool had = std::getenv("TORCH_CUDA_ARCH_LIST") != nullptr;
  ::setenv("TORCH_CUDA_ARCH_LIST", ("9.0 " + k_aws).c_str(), 1);
  gd::RealHost live("/", {});
  CHECK(live.env("TORCH_CUDA_ARCH_LIST") == "9.0 <secret>");
  if (had) {
    ::setenv("TORCH_CUDA_ARCH_LIST", old.c_str(), 1);
  } else {
    ::unsetenv("TORCH_CUDA_ARCH_LIST");
  }
}

}  // namespace GD_UNITY_ID
