#include <catch2/catch.hpp>

#include "util/secret_scrub.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::scrub_secrets;

TEST_CASE("tokens inside allowed values are replaced", "[util][secrets]") {
  CHECK(scrub_secrets("/opt/hf_AbCdEfGhIjKlMnOpQrStUvWx/lib:/usr/lib") == "/opt/<secret>/lib:/usr/lib");
  CHECK(scrub_secrets("/x/ghp_0123456789abcdefghijABCDEFGHIJ0123/y") == "/x/<secret>/y");
  CHECK(scrub_secrets("github_pat_11ABCDEFG0123456789_abcdefghijklmnop") == "<secret>");
  CHECK(scrub_secrets("AKIAIOSFODNN7EXAMPLE") == "<secret>");
  CHECK(scrub_secrets("key=sk-proj-abcdefghijklmnop1234") == "key=<secret>");
  // W&B API keys are 40 hex digits.
  CHECK(scrub_secrets("/tmp/0123456789abcdef0123456789abcdef01234567") == "/tmp/<secret>");
  CHECK(scrub_secrets("https://user:hunter2@pypi.example.com/simple") == "https://user:<secret>@pypi.example.com/simple");
}

TEST_CASE("ordinary paths, versions and Nix store hashes stay as they are", "[util][secrets]") {
  for (const char* value : {"/usr/local/nvidia/lib64:/usr/local/nvidia/lib", "/usr/local/cuda-13.0/lib64",
                            "/nix/store/0c0kn5d1kvsjb6h8lmsa27hrzyx4qw3n-nvidia-x11-580.95.05/lib", "sk-learn",
                            "compute,utility", "cuda>=13.0 brand=tesla,driver>=535,driver<536", "GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad",
                            "https://download.pytorch.org/whl/cu130", "hf_short"}) {
    CHECK(scrub_secrets(value) == value);
  }
}

TEST_CASE("a token joined to a word by a dash is still a token", "[util][secrets]") {
  CHECK(scrub_secrets("GPU-ghp_0123456789abcdefghijABCDEFGHIJ0123") == "<secret>");
  CHECK(scrub_secrets("/opt/env-hf_AbCdEfGhIjKlMnOpQrStUvWx/lib") == "/opt/<secret>/lib");
  CHECK(scrub_secrets("node-AKIAIOSFODNN7EXAMPLE") == "<secret>");
  CHECK(gd::scrub_known_secrets("GPU-ghp_0123456789abcdefghijABCDEFGHIJ0123") == "<secret>");
  // GPU and MIG UUIDs have no token after their dashes.
  CHECK(scrub_secrets("MIG-GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad/1/0") == "MIG-GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad/1/0");
}

TEST_CASE("a URL's password is one without blanks: an '@' further on in a sentence is not one", "[util][secrets]") {
  std::string sentence = "see https://docs.example.com for details: mail admin@example.com";
  CHECK(scrub_secrets(sentence) == sentence);
  CHECK(gd::scrub_known_secrets("pip install --index-url https://u:hunter2@pypi.example.com/simple torch") ==
        "pip install --index-url https://u:<secret>@pypi.example.com/simple torch");
}

TEST_CASE("the known shapes alone keep long legitimate runs the generic rule would take", "[util][secrets]") {
  // torch's git_version, an NVRM function name of a kernel log line, a sha256 digest.
  for (const char* value : {"70d99e998b4955e0049d13a98d77ae1b14db1f45", "NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: x",
                            "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}) {
    CHECK(gd::scrub_known_secrets(value) == value);
    CHECK(scrub_secrets(value) != value);  // the environment's scrubber would take them
  }
  CHECK(gd::scrub_known_secrets("x hf_AbCdEfGhIjKlMnOpQrStUvWx AKIAIOSFODNN7EXAMPLE https://a:b@c/d") ==
        "x <secret> <secret> https://a:<secret>@c/d");
}

}  // namespace GD_UNITY_ID
