#include <catch2/catch.hpp>

#include "report/redact.hpp"

TEST_CASE("--redact removes the host name, UUIDs and user names, and keeps the diagnosis", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name", std::string("gpu-node-17.corp.example"));
  gd::Redactor redactor = gd::Redactor::for_facts(facts);
  CHECK(redactor.text("host gpu-node-17.corp.example, short gpu-node-17, not gpu-node-170") ==
        "host <host>, short <host>, not gpu-node-170");
  CHECK(redactor.text("GPU 0: GPU-48a35ae5-26cc-b221-0dfe-8d39c03f25ad ok") == "GPU 0: GPU-<uuid> ok");
  CHECK(redactor.text("CUDA_VISIBLE_DEVICES=MIG-0a1b2c3d-4e5f-6789-abcd-ef0123456789") == "CUDA_VISIBLE_DEVICES=MIG-<uuid>");
  CHECK(redactor.text("/home/alice/.venv/lib:/Users/bob/x") == "/home/<user>/.venv/lib:/Users/<user>/x");
  // What diagnoses the host stays.
  CHECK(redactor.text("/usr/local/nvidia/lib64/libcuda.so.580.159.04 GPU-not-a-uuid") ==
        "/usr/local/nvidia/lib64/libcuda.so.580.159.04 GPU-not-a-uuid");
}

TEST_CASE("--redact in JSON: keys and values, and process names other than NVIDIA's daemons", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name", std::string("dgx01"));
  gd::Redactor redactor = gd::Redactor::for_facts(facts);
  nlohmann::json j = {
      {"facts", {{"host.name", {{"value", "dgx01"}}}}},
      {"capture",
       {{"uname", {{"nodename", "dgx01"}}},
        {"paths",
         {{"/home/carol/.local/lib", {{"list", {"x"}}}},
          {"/proc/42/comm", {{"read", {{"lines", {"secret-trainer", ""}}}}}},
          {"/proc/7/comm", {{"read", {{"lines", {"nvidia-persiste", ""}}}}}}}}}}};
  redactor.json(j);
  CHECK(j["facts"]["host.name"]["value"] == "<host>");
  CHECK(j["capture"]["uname"]["nodename"] == "<host>");
  CHECK(j["capture"]["paths"].contains("/home/<user>/.local/lib"));
  CHECK(j["capture"]["paths"]["/proc/42/comm"]["read"]["lines"][0] == "<process>");
  CHECK(j["capture"]["paths"]["/proc/7/comm"]["read"]["lines"][0] == "nvidia-persiste");
  CHECK(j.dump().find("dgx01") == std::string::npos);
  CHECK(j.dump().find("carol") == std::string::npos);
}

TEST_CASE("a short or generic host name is not redacted everywhere", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name", std::string("localhost"));
  CHECK(gd::Redactor::for_facts(facts).host_names.empty());
}
