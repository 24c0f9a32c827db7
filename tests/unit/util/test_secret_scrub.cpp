#include <catch2/catch.hpp>

#include "util/secret_scrub.hpp"

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
