#include <catch2/catch.hpp>

#include "core/fact_key.hpp"
#include "report/redact.hpp"
#include "report/redact_accounts.hpp"

#include "ldconfig_tree.hpp"
#include "probes/libraries/ld_cache.hpp"
#include "util/text_codec.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

TEST_CASE("--redact removes the host name, UUIDs and user names, and keeps the diagnosis", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name"_fact, std::string("gpu-node-17.corp.example"));
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
  facts.set("host.name"_fact, std::string("dgx01"));
  gd::Redactor redactor = gd::Redactor::for_facts(facts);
  nlohmann::json j = {
      {"facts", {{"host.name"_fact, {{"value", "dgx01"}}}}},
      {"capture",
       {{"uname", {{"nodename", "dgx01"}}},
        {"paths",
         {{"/home/carol/.local/lib", {{"list", {"x"}}}},
          {"/proc/42/comm", {{"read", {{"lines", {"secret-trainer", ""}}}}}},
          {"/proc/7/comm", {{"read", {{"lines", {"nvidia-persiste", ""}}}}}},
          {"/proc/9/comm", {{"read", {{"lines", {"nvidia-imex", ""}}}}}}}}}}};
  redactor.json(j);
  CHECK(j["facts"]["host.name"_fact]["value"] == "<host>");
  CHECK(j["capture"]["uname"]["nodename"] == "<host>");
  CHECK(j["capture"]["paths"].contains("/home/<user>/.local/lib"));
  CHECK(j["capture"]["paths"]["/proc/42/comm"]["read"]["lines"][0] == "<process>");
  CHECK(j["capture"]["paths"]["/proc/7/comm"]["read"]["lines"][0] == "nvidia-persiste");
  CHECK(j["capture"]["paths"]["/proc/9/comm"]["read"]["lines"][0] == "nvidia-imex");  // services.imex.running replays
  CHECK(j.dump().find("dgx01") == std::string::npos);
  CHECK(j.dump().find("carol") == std::string::npos);
}

TEST_CASE("--redact: a process's name in its /proc/PID/stat goes as it does from comm", "[report][redact]") {
  // The fabric manager probe reads every process's stat line (its start time): the name in
  // parentheses is the same comm, and what follows the last ')' must stay for a replay.
  gd::Redactor redactor;
  nlohmann::json j = {
      {"paths",
       {{"/proc/42/stat", {{"read", {{"lines", {"42 (secret) (trainer) S 1 42 42 0 -1 4194560 2113 0 0 0 12 30 0 0 20 0 29 0 360000 1", ""}}}}}},
        {"/proc/5120/stat", {{"read", {{"lines", {"5120 (nv-fabricmanage) S 1 5120 5120 0 -1 4194560 1 0 0 0 1 1 0 0 20 0 9 0 1152000 1", ""}}}}}},
        {"/proc/stat", {{"read", {{"lines", {"btime 1796544000", ""}}}}}}}}};
  redactor.json(j);
  CHECK(j["paths"]["/proc/42/stat"]["read"]["lines"][0] ==
        "42 (<process>) S 1 42 42 0 -1 4194560 2113 0 0 0 12 30 0 0 20 0 29 0 360000 1");
  CHECK(j["paths"]["/proc/5120/stat"]["read"]["lines"][0] ==
        "5120 (nv-fabricmanage) S 1 5120 5120 0 -1 4194560 1 0 0 0 1 1 0 0 20 0 9 0 1152000 1");
  CHECK(j["paths"]["/proc/stat"]["read"]["lines"][0] == "btime 1796544000");
  CHECK(j.dump().find("secret") == std::string::npos);
}

TEST_CASE("--redact: a process's name in a fact's text goes, NVIDIA's daemons stay", "[report][redact]") {
  // service.fabricmanager.older_cuda_processes lists "pid N (name) since ...".
  gd::Redactor r;
  CHECK(r.text("[pid 4121 (python) since 3600 s after boot, 120 s before the fabric manager]") ==
        "[pid 4121 (<process>) since 3600 s after boot, 120 s before the fabric manager]");
  CHECK(r.text("pid 7 (nv-hostengine) since boot") == "pid 7 (nv-hostengine) since boot");
  CHECK(r.text("rapid 12 (x)") == "rapid 12 (x)");            // not a word "pid"
  CHECK(r.text("pid (python)") == "pid (python)");            // no number
  CHECK(r.text("pid 12 (a name far too long for a comm)") == "pid 12 (a name far too long for a comm)");
}

TEST_CASE("a short or generic host name is not redacted everywhere", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name"_fact, std::string("localhost"));
  CHECK(gd::Redactor::for_facts(facts).host_names.empty());
}

TEST_CASE("--redact removes GPU and USB serial numbers the kernel log prints", "[report][redact]") {
  gd::Redactor redactor;
  // Lines as NVRM writes them with an Xid 79 and as the USB core announces a device.
  CHECK(redactor.text("6,1201,4254197854,-;NVRM: GPU Board Serial Number: 1653923026510") ==
        "6,1201,4254197854,-;NVRM: GPU Board Serial Number: <serial>");
  CHECK(redactor.text("NVRM: GPU 0000:5d:00.0: GPU serial number is 1653923026510.") ==
        "NVRM: GPU 0000:5d:00.0: GPU serial number is <serial>.");
  CHECK(redactor.text("NVRM: GPU 0000:2f:00.0: GPU serial number is PKWUQ0B9VFK0SG.\n") ==
        "NVRM: GPU 0000:2f:00.0: GPU serial number is <serial>.\n");
  CHECK(redactor.text("usb 1-1: SerialNumber: 0123ABCD-77") == "usb 1-1: SerialNumber: <serial>");
  // The Xid line itself, which the kernel-log rules read, stays whole.
  const std::string xid = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";
  CHECK(redactor.text(xid) == xid);
  CHECK(redactor.text("the serial number: ") == "the serial number: ");
}

TEST_CASE("--redact on binary contents keeps their length and every offset", "[report][redact]") {
  gd::FactSet facts;
  facts.set("host.name"_fact, std::string("dgx01"));
  gd::Redactor redactor = gd::Redactor::for_facts(facts);
  const std::string uuid = "48a35ae5-26cc-b221-0dfe-8d39c03f25ad";
  const std::string binary = std::string("\x01\x02/home/alice/lib/libcuda.so.1\0GPU-", 35) + uuid +
                             std::string("\0dgx01\0\xff", 8);
  const std::string redacted = redactor.bytes(binary);
  CHECK(redacted.size() == binary.size());
  CHECK(redacted == std::string("\x01\x02/home/xxxxx/lib/libcuda.so.1\0GPU-", 35) + std::string(36, 'x') +
                        std::string("\0xxxxx\0\xff", 8));

  // In a capture, binary files are base64: decoded, redacted and encoded again.
  nlohmann::json j = {{"capture", {{"paths", {{"/etc/ld.so.cache", {{"read", {{"base64", gd::base64_encode(binary)}}}}}}}}}};
  redactor.json(j);
  auto decoded = gd::base64_decode(j["capture"]["paths"]["/etc/ld.so.cache"]["read"]["base64"].get<std::string>());
  REQUIRE(decoded);
  CHECK(*decoded == redacted);
}

TEST_CASE("--redact: a real ld.so.cache listing a home folder still parses, with the same entries",
          "[report][redact][needs-ldconfig]") {
  REQUIRE(gd::test::have("ldconfig"));
  gd::test::TempTree tree;
  tree.file("/home/alice/driver/lib/libcuda.so.580.159.04", gd::test::elf_fixture("libcuda.x86_64.so"));
  tree.file("/etc/ld.so.conf", "/home/alice/driver/lib\n");
  REQUIRE(gd::test::run_ldconfig(tree) == 0);
  const std::string cache = gd::test::tree_file(tree, "/etc/ld.so.cache");
  auto before = gd::parse_ld_cache(cache);
  REQUIRE(before);
  REQUIRE_FALSE(before->entries.empty());

  auto after = gd::parse_ld_cache(gd::Redactor{}.bytes(cache));
  REQUIRE(after);
  REQUIRE(after->entries.size() == before->entries.size());
  for (std::size_t i = 0; i < after->entries.size(); ++i) {
    CHECK(after->entries[i].key == before->entries[i].key);
    CHECK(after->entries[i].value.find("alice") == std::string::npos);
    CHECK(after->entries[i].value.starts_with("/home/xxxxx/driver/lib/"));
  }
}

TEST_CASE("--redact: /etc/passwd and /etc/group keep ids, home shapes and shells, lose people's names",
          "[report][redact]") {
  const std::string passwd =
      "root:x:0:0:root:/root:/bin/bash\n"
      "svcgpu:x:998:998:GPU burn-in (ask Jane Roe):/var/lib/svcgpu:/usr/sbin/nologin\n"
      "alice:x:1000:1000:Alice Liddell,Room 42,,:/home/alice:/bin/bash\n"
      "bob:$6$salt$hash:1001:1001:Robert Smith:/data/users/bob:/bin/zsh\n"
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
      "garbage line with alice in it\n";
  CHECK(gd::redact_passwd(passwd) ==
        "root:x:0:0::/root:/bin/bash\n"
        "svcgpu:x:998:998::/var/lib/svcgpu:/usr/sbin/nologin\n"
        "<user>:x:1000:1000::/home/<user>:/bin/bash\n"
        "<user>:x:1001:1001::/data/users/<user>:/bin/zsh\n"
        "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n"
        "<redacted>\n");
  gd::PeopleAccounts people = gd::people_accounts(passwd);
  CHECK(people.names == std::vector<std::string>{"alice", "bob"});
  CHECK(people.other_homes == std::vector<std::string>{"/data/users/bob"});
  CHECK(gd::redact_group("root:x:0:\nvideo:x:44:alice,bob\nalice:x:1000:\nbob:!:1001:\nml:x:2000:alice\n", people.names) ==
        "root:x:0:\nvideo:x:44:\n<user>:x:1000:\n<user>:!:1001:\n<group>:x:2000:\n");

  // In a capture: the files rewritten, the other home folders' last part gone wherever it appears,
  // /home/<user> as before; a non-UTF-8 passwd (kept as base64) likewise.
  nlohmann::json capture = {{"paths",
                             {{"/etc/passwd", {{"read", {{"lines", {"bob:x:1001:1001:Bob:/data/users/bob:/bin/sh", ""}}}}}},
                              {"/etc/group", {{"read", {{"lines", {"bob:x:1001:", "video:x:44:bob", ""}}}}}},
                              {"/data/users/bob/.local/lib", {{"list", {"python3.12"}}}},
                              {"/data/users/bobby", {{"list", nlohmann::json::array()}}}}}};
  gd::Redactor redactor;
  redactor.add_accounts(capture);
  redactor.json(capture);
  CHECK(capture["paths"]["/etc/passwd"]["read"]["lines"] ==
        nlohmann::json::array({"<user>:x:1001:1001::/data/users/<user>:/bin/sh", ""}));
  CHECK(capture["paths"]["/etc/group"]["read"]["lines"] == nlohmann::json::array({"<user>:x:1001:", "video:x:44:", ""}));
  CHECK(capture["paths"].contains("/data/users/<user>/.local/lib"));
  CHECK(capture["paths"].contains("/data/users/bobby"));  // another name, not inside it
  nlohmann::json binary = {{"paths", {{"/etc/passwd", {{"read", {{"base64", gd::base64_encode("jos\xe9:x:1002:1002:Jos\xe9 P:/home/jos\xe9:/bin/sh\n")}}}}}}}};
  redactor.json(binary);
  CHECK(binary["paths"]["/etc/passwd"]["read"] ==
        nlohmann::json{{"lines", nlohmann::json::array({"<user>:x:1002:1002::/home/<user>:/bin/sh", ""})}});
}

}  // namespace GD_UNITY_ID
