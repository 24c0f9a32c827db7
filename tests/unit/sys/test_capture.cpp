#include "sys/capture.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "host_captures.hpp"
#include "source_files.hpp"
#include "util/errno_names.hpp"
#include "util/text_codec.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::CapturedHelperRun;
using gd::CapturedPath;
using gd::capture_from_json;
using gd::capture_to_json;
using gd::FileKind;
using gd::FileStat;
using gd::HelperOutcome;
using gd::IoError;
using nlohmann::json;

namespace {

constexpr const char* k_file = "captures/broken.json";

// ---- building a capture that uses every field ------------------------------------------

FileStat stat_of(FileKind kind, std::uint32_t mode, std::uint32_t major, std::uint32_t minor, std::uint32_t gid = 0) {
  FileStat st;
  st.kind = kind;
  st.mode = mode;
  st.gid = gid;
  st.major = major;
  st.minor = minor;
  return st;
}

FileStat regular(std::uint32_t mode, std::uint64_t size) {
  FileStat st;
  st.kind = FileKind::regular;
  st.mode = mode;
  st.size = size;
  return st;
}

std::unexpected<IoError> io_error(int code) { return std::unexpected(IoError{code}); }

// Real text: the start of a healthy helper reply, and /proc/driver/nvidia/version of an H200.
constexpr std::string_view k_reply =
    "gpudoctor-helper\t1\nstage\tdlopen-cuda\ncuda.dlopen\tok\ncuda.path\t/usr/local/nvidia/lib64/libcuda.so.580.159.04\n"
    "stage\tcuInit\ncuda.init.result\t0\ncuda.init.name\tCUDA_SUCCESS\nstage\tdone\nend\tok\n";
constexpr std::string_view k_version_file =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
    "GCC version:  gcc version 15.3.0 (GCC) \n";
// The start of /etc/ld.so.cache: binary, so it must travel as base64.
const std::string k_binary("ld.so-1.7.0\0\0\0\x9c\x05\0\0\x01\x03\xff\xfe", 22);

Capture full_capture() {
  Capture c;
  c.created_by = "gpudoctor 0.1.0";
  c.root = "/srv/rootfs";
  c.identity = gd::Identity{1000, 1000, {44, 109, 1000}};
  c.uname = gd::Uname{"Linux", "gpu-node-7", "6.8.0-45-generic", "#45-Ubuntu SMP PREEMPT_DYNAMIC", "x86_64"};
  c.env["CUDA_VISIBLE_DEVICES"] = "0,1";
  c.env["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64:/usr/local/nvidia/lib";
  c.env["LD_PRELOAD"] = std::nullopt;

  c.paths["/proc/driver/nvidia/version"].read = std::string(k_version_file);
  c.paths["/proc/driver/nvidia/params"].read = io_error(EACCES);
  c.paths["/etc/ld.so.cache"].read = k_binary;
  c.paths["/proc/driver/nvidia/gpus"].list = std::vector<std::string>{"0000:18:00.0", "0000:2a:00.0"};
  c.paths["/sys/bus/pci/drivers/nvidia"].list = io_error(ENOENT);
  c.paths["/dev/nvidia0"].stat = stat_of(FileKind::char_device, 0666, 195, 0);
  c.paths["/dev/nvidia0"].open = 0;
  c.paths["/dev/nvidiactl"].stat = stat_of(FileKind::char_device, 0660, 195, 255, 44);
  c.paths["/dev/nvidiactl"].open = EACCES;
  c.paths["/dev/nvidia-uvm"].stat = io_error(ENOENT);
  c.paths["/dev/nvidia-uvm"].open = ENOENT;
  c.paths["/dev/nvme0n1"].stat = stat_of(FileKind::block_device, 0660, 259, 0, 6);
  c.paths["/dev/shm"].stat = stat_of(FileKind::directory, 01777, 0, 0);
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"].link = "libcuda.so.580.159.04";
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"].lstat = stat_of(FileKind::symlink, 0777, 0, 0);
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"].stat = regular(0644, 96000000);
  c.paths["/etc/passwd"].link = io_error(EINVAL);
  c.paths["/run/nvidia-persistenced/socket"].lstat = stat_of(FileKind::socket, 0755, 0, 0);
  c.paths["/var/empty"];  // mentioned, nothing asked

  CapturedHelperRun user;
  user.request.timeout_ms = 30000;
  user.request.libcuda_path = "/opt/driver/libcuda.so.580.159.04";
  user.request.libnvml_path = "/opt/driver/libnvidia-ml.so.580.159.04";
  user.outcome.status = HelperOutcome::Status::finished;
  user.outcome.reply = std::string(k_reply);
  user.outcome.out = "";
  user.outcome.err = std::string("\xff\xfe warning from libcuda\n");  // not UTF-8
  user.outcome.duration_ms = 354;
  user.outcome.loader = "/lib64/ld-linux-x86-64.so.2";
  c.helper_runs.push_back(user);

  CapturedHelperRun clean;
  clean.request.clean_env = true;
  clean.request.timeout_ms = 5000;
  clean.outcome.status = HelperOutcome::Status::crashed;
  clean.outcome.signal = 11;
  clean.outcome.exit_code = -1;
  clean.outcome.reply = "gpudoctor-helper\t1\nstage\tcuInit\n";
  clean.outcome.out = "partial";
  clean.outcome.output_cut = true;
  clean.outcome.duration_ms = 12;
  clean.outcome.error = "killed by SIGSEGV";
  c.helper_runs.push_back(clean);

  CapturedHelperRun nvml_only;
  nvml_only.request.nvml_only = true;
  nvml_only.request.timeout_ms = 2000;
  nvml_only.outcome.status = HelperOutcome::Status::finished;
  nvml_only.outcome.reply = "gpudoctor-helper\t1\nstage\tdlopen-nvml\nnvml.dlopen\tok\nstage\tdone\nend\tok\n";
  c.helper_runs.push_back(nvml_only);
  return c;
}

// ---- comparing captures: every field as one line of text ---------------------------------

std::string show(const FileStat& st) {
  return fmt::format("{} {:04o} {}:{} {}/{} size {}", gd::to_string(st.kind), st.mode, st.uid, st.gid, st.major, st.minor,
                     st.size);
}

template <typename T, typename F>
std::string show(const std::optional<gd::IoResult<T>>& value, F&& text) {
  if (!value) return "-";
  if (!*value) return "error " + gd::errno_name((*value).error().code);
  return text(**value);
}

std::vector<std::string> show(const Capture& c) {
  std::vector<std::string> out;
  out.push_back("created_by " + c.created_by);
  out.push_back("root " + c.root);
  if (c.identity) {
    out.push_back(fmt::format("identity {} {} [{}]", c.identity->uid, c.identity->gid, fmt::join(c.identity->groups, ",")));
  }
  if (c.uname) {
    const gd::Uname& u = *c.uname;
    out.push_back(fmt::format("uname {}|{}|{}|{}|{}", u.sysname, u.nodename, u.release, u.version, u.machine));
  }
  for (const auto& [name, value] : c.env) {
    out.push_back(fmt::format("env {}={}", name, value.value_or("<unset>")));
  }
  auto quoted = [](const std::string& s) { return fmt::format("{:?}", s); };
  auto stat_text = [](const FileStat& st) { return show(st); };
  auto names = [](const std::vector<std::string>& list) { return fmt::format("[{}]", fmt::join(list, ",")); };
  for (const auto& [path, p] : c.paths) {
    out.push_back(fmt::format("{}: read {} list {} stat {} lstat {} link {} open {}", path, show(p.read, quoted),
                              show(p.list, names), show(p.stat, stat_text), show(p.lstat, stat_text),
                              show(p.link, quoted), p.open ? gd::errno_name(*p.open) : "-"));
  }
  for (const auto& run : c.helper_runs) {
    const HelperOutcome& o = run.outcome;
    out.push_back(fmt::format("run {} {} {} {} | {} exit {} signal {} {} ms loader {} error {} cut {} | {:?} {:?} {:?}",
                              run.request.mode(), run.request.timeout_ms, run.request.libcuda_path,
                              run.request.libnvml_path, gd::to_string(o.status), o.exit_code, o.signal, o.duration_ms,
                              o.loader, o.error, o.output_cut, o.reply, o.out, o.err));
  }
  return out;
}

Capture round_trip(const Capture& capture) {
  // Through text, as a capture file travels.
  json parsed = json::parse(capture_to_json(capture).dump(2));
  auto back = capture_from_json(parsed, "round-trip.json");
  if (!back) {
    FAIL(back.error().describe());
  }
  return *back;
}

// ---- errors -----------------------------------------------------------------------------

json minimal() { return json{{"format", "gpudoctor-capture"}, {"version", 1}}; }

json with_path(const std::string& path, json observed) {
  json j = minimal();
  j["paths"][path] = std::move(observed);
  return j;
}

json with_run(json run) {
  json j = minimal();
  j["helper_runs"] = json::array({std::move(run)});
  return j;
}

json finished_run() {
  return json{{"mode", "user-env"}, {"status", "finished"}, {"reply", {{"lines", json::array({""})}}}};
}

/// The error reading `j` gives; fails the test when it reads.
gd::Error error_for(const json& j) {
  auto result = capture_from_json(j, k_file);
  REQUIRE_FALSE(result);
  CHECK(result.error().file == k_file);
  return result.error();
}

}  // namespace

TEST_CASE("capture: every field survives to_json and from_json", "[sys][capture]") {
  Capture original = full_capture();
  Capture back = round_trip(original);
  CHECK(show(back) == show(original));

  // Spot checks that the comparison above really looks at the values.
  CHECK(back.identity->groups == std::vector<std::uint32_t>{44, 109, 1000});
  CHECK(back.env.at("LD_PRELOAD") == std::nullopt);
  CHECK(back.env.at("CUDA_VISIBLE_DEVICES") == "0,1");
  CHECK(**back.paths.at("/etc/ld.so.cache").read == k_binary);
  CHECK(back.paths.at("/proc/driver/nvidia/params").read->error().code == EACCES);
  const FileStat& ctl = **back.paths.at("/dev/nvidiactl").stat;
  CHECK(ctl.kind == FileKind::char_device);
  CHECK(ctl.mode == 0660);
  CHECK(ctl.gid == 44);
  CHECK(ctl.major == 195);
  CHECK(ctl.minor == 255);
  CHECK(back.paths.at("/dev/nvidiactl").open == EACCES);
  CHECK(back.paths.at("/dev/nvidia0").open == 0);
  CHECK((**back.paths.at("/dev/shm").stat).mode == 01777);
  CHECK(**back.paths.at("/usr/lib/x86_64-linux-gnu/libcuda.so.1").link == "libcuda.so.580.159.04");
  REQUIRE(back.helper_runs.size() == 3);
  CHECK(back.helper_runs[0].outcome.reply == k_reply);
  CHECK(back.helper_runs[0].outcome.err == "\xff\xfe warning from libcuda\n");
  CHECK(back.helper_runs[1].request.clean_env);
  CHECK(back.helper_runs[1].outcome.status == HelperOutcome::Status::crashed);
  CHECK(back.helper_runs[1].outcome.signal == 11);
  CHECK(back.helper_runs[1].outcome.output_cut);
  CHECK(back.helper_runs[2].request.nvml_only);
  CHECK(back.helper_runs[2].request.timeout_ms == 2000);
}

TEST_CASE("capture: the JSON form is the documented one", "[sys][capture]") {
  json j = capture_to_json(full_capture());
  CHECK(j["format"] == "gpudoctor-capture");
  CHECK(j["version"] == 1);
  CHECK(j["identity"] == json{{"uid", 1000}, {"gid", 1000}, {"groups", {44, 109, 1000}}});
  CHECK(j["env"]["LD_PRELOAD"].is_null());
  const json& paths = j["paths"];
  // Text as reviewable lines, a trailing newline as a final "".
  CHECK(paths["/proc/driver/nvidia/version"]["read"] ==
        json{{"lines",
              {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  ",
               "GCC version:  gcc version 15.3.0 (GCC) ", ""}}});
  // Anything else as base64.
  CHECK(paths["/etc/ld.so.cache"]["read"] == json{{"base64", gd::base64_encode(k_binary)}});
  CHECK(paths["/proc/driver/nvidia/params"]["read"] == json{{"error", "EACCES"}});
  CHECK(paths["/sys/bus/pci/drivers/nvidia"]["list"] == json{{"error", "ENOENT"}});
  CHECK(paths["/dev/nvidia0"] ==
        json{{"stat", {{"type", "char"}, {"mode", "0666"}, {"uid", 0}, {"gid", 0}, {"major", 195}, {"minor", 0}}},
             {"open", "ok"}});
  CHECK(paths["/dev/nvidiactl"]["open"] == "EACCES");
  CHECK(paths["/dev/nvme0n1"]["stat"]["type"] == "block");
  CHECK(paths["/dev/shm"]["stat"]["mode"] == "1777");
  CHECK(paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"]["stat"]["size"] == 96000000);
  CHECK(paths["/var/empty"] == json::object());
  const json& run = j["helper_runs"][0];
  CHECK(run["mode"] == "user-env");
  CHECK(run["status"] == "finished");
  CHECK(run["libcuda"] == "/opt/driver/libcuda.so.580.159.04");
  CHECK(run["reply"]["lines"][0] == "gpudoctor-helper\t1");
  CHECK(run["stderr"].contains("base64"));
  CHECK(j["helper_runs"][1]["mode"] == "clean-env");
  CHECK(j["helper_runs"][1]["status"] == "crashed");
  CHECK_FALSE(j["helper_runs"][1].contains("libcuda"));
  CHECK(j["helper_runs"][2]["mode"] == "nvml-only");
  CHECK(j["helper_runs"][2]["timeout_ms"] == 2000);
}

TEST_CASE("capture: the captured hosts read back to the same JSON", "[sys][capture]") {
  for (const char* name : {"h200-live-580.159.04", "h200-container-580.159.04"}) {
    CAPTURE(name);
    json original = gd::test::host_capture_json(name);
    auto capture = capture_from_json(original, name);
    REQUIRE(capture);
    CHECK(capture_to_json(*capture) == original);
  }
  Capture live = gd::test::host_capture("h200-live-580.159.04");
  REQUIRE(live.helper_runs.size() == 1);
  CHECK(live.helper_runs[0].outcome.reply.starts_with("gpudoctor-helper\t1\nstage\tdlopen-cuda\n"));
  CHECK(live.helper_runs[0].outcome.reply.ends_with("end\tok\n"));
  CHECK(live.env.at("LD_LIBRARY_PATH") == "/usr/local/nvidia/lib64:/usr/local/nvidia/lib");
}

TEST_CASE("capture: every capture under tests/hosts reads, and each is replayed by the e2e table", "[sys][capture]") {
  // Every capture: the committed ones and those made from tests/hosts/*.host.json at test time,
  // all in the fixture's folder. The captures are named once more, with their expected findings, in
  // test_replay_hosts.sh's table: a capture missing from either place, or one that no longer reads
  // or holds nothing, fails.
  const std::string script = gd::test::source_file("tests/e2e/test_replay_hosts.sh");
  const std::size_t table_start = script.find("<<'TABLE'\n");
  REQUIRE(table_start != std::string::npos);
  const std::size_t table_end = script.find("\nTABLE\n", table_start);
  REQUIRE(table_end != std::string::npos);
  std::set<std::string> replayed;
  std::istringstream table(script.substr(table_start + 9, table_end - table_start - 9));
  for (std::string line; std::getline(table, line);) {
    if (!line.empty()) {
      replayed.insert(line.substr(0, line.find('|')));
    }
  }
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::directory_iterator(gd::test::test_hosts_dir())) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".capture.json")) {
      continue;
    }
    CAPTURE(name);
    present.insert(name);
    Capture capture;
    REQUIRE_NOTHROW(capture = gd::test::host_capture(name.substr(0, name.size() - std::string(".capture.json").size())));
    CHECK_FALSE(capture.paths.empty());
  }
  CHECK(present == replayed);
  CHECK(present.size() >= 18);
}

TEST_CASE("capture: a minimal file reads with defaults", "[sys][capture]") {
  auto capture = capture_from_json(minimal(), k_file);
  REQUIRE(capture);
  CHECK(capture->root == "/");
  CHECK_FALSE(capture->identity);
  CHECK_FALSE(capture->uname);
  CHECK(capture->paths.empty());
  CHECK(capture->helper_runs.empty());
}

TEST_CASE("capture: documents that are not captures are refused", "[sys][capture]") {
  SECTION("not an object") {
    gd::Error e = error_for(json::array({1, 2}));
    CHECK(e.message == "capture: expected a JSON object");
    CHECK(e.describe() == "captures/broken.json: capture: expected a JSON object");
  }
  SECTION("another format") {
    json j = minimal();
    j["format"] = "gpudoctor-report";
    CHECK(error_for(j).message == "format: not a gpudoctor capture (expected \"format\": \"gpudoctor-capture\")");
    j.erase("format");
    CHECK(error_for(j).message.starts_with("format: "));
  }
  SECTION("a newer version") {
    json j = minimal();
    j["version"] = 2;
    CHECK(error_for(j).message == "version: capture version 2 is not supported (this gpudoctor reads 1)");
  }
  SECTION("a version that is not a number") {
    json j = minimal();
    j["version"] = "1";
    CHECK(error_for(j).message == "version: expected an integer");
    j.erase("version");
    CHECK(error_for(j).message == "version: expected an integer");
  }
}

TEST_CASE("capture: wrong types name the JSON path", "[sys][capture]") {
  SECTION("top level") {
    json j = minimal();
    j["root"] = 1;
    CHECK(error_for(j).message == "root: expected a string");
    j = minimal();
    j["paths"] = json::array();
    CHECK(error_for(j).message == "paths: expected an object keyed by absolute path");
    j = minimal();
    j["helper_runs"] = json::object();
    CHECK(error_for(j).message == "helper_runs: expected an array");
    j = minimal();
    j["env"]["CUDA_VISIBLE_DEVICES"] = 0;
    CHECK(error_for(j).message == "env.CUDA_VISIBLE_DEVICES: expected a string");
    j = minimal();
    j["identity"] = {{"uid", "0"}};
    CHECK(error_for(j).message == "identity.uid: expected an integer");
    j = minimal();
    j["identity"] = {{"uid", -1}};
    CHECK(error_for(j).message == "identity.uid: out of range");
    j = minimal();
    j["identity"] = {{"uid", 1000}, {"groups", {44, "video"}}};
    CHECK(error_for(j).message == "identity.groups[1]: expected an integer");
    j = minimal();
    j["identity"] = {{"uid", 1000}, {"groups", {44, 4294967296LL}}};
    CHECK(error_for(j).message == "identity.groups[1]: out of range");
    j = minimal();
    j["uname"] = {{"machine", 64}};
    CHECK(error_for(j).message == "uname.machine: expected a string");
  }
  SECTION("paths") {
    CHECK(error_for(with_path("dev/nvidia0", json::object())).message == "paths: 'dev/nvidia0' is not an absolute path");
    CHECK(error_for(with_path("/dev/nvidia0", json::array())).message == "paths./dev/nvidia0: expected an object");
    CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"type", "char"}, {"major", "195"}}}})).message ==
          "paths./dev/nvidia0.stat.major: expected an integer");
    CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"type", "char"}, {"minor", -1}}}})).message ==
          "paths./dev/nvidia0.stat.minor: out of range");
    CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"type", "pipe"}}}})).message ==
          "paths./dev/nvidia0.stat.type: unknown file type 'pipe'");
    CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"mode", "rw-rw-rw-"}}}})).message ==
          "paths./dev/nvidia0.stat.mode: expected an octal string like \"0666\"");
    CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"mode", 666}}}})).message ==
          "paths./dev/nvidia0.stat.mode: expected a string");
    for (const char* mode : {"0999", "-1", "0666abc", "", " 0666", "07777777"}) {
      CAPTURE(mode);
      CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"mode", mode}}}})).message ==
            "paths./dev/nvidia0.stat.mode: expected an octal string like \"0666\"");
    }
    CHECK(error_for(with_path("/usr/lib/libcuda.so.1", {{"stat", {{"size", -1}}}})).message ==
          "paths./usr/lib/libcuda.so.1.stat.size: out of range");
    CHECK(error_for(with_path("/proc/version", {{"read", "Linux version 6.8"}})).message ==
          "paths./proc/version.read: expected {\"lines\": [...]} or {\"base64\": \"...\"}");
    CHECK(error_for(with_path("/proc/version", {{"read", {{"lines", {"ok", 7}}}}})).message ==
          "paths./proc/version.read.lines[1]: expected a string");
    CHECK(error_for(with_path("/proc/version", {{"read", {{"lines", "Linux"}}}})).message ==
          "paths./proc/version.read.lines: expected an array of strings");
    CHECK(error_for(with_path("/etc/ld.so.cache", {{"read", {{"base64", "bGQ=bw=="}}}})).message ==
          "paths./etc/ld.so.cache.read.base64: not valid base64");
    CHECK(error_for(with_path("/proc/version", {{"read", {{"text", "Linux"}}}})).message ==
          "paths./proc/version.read: expected \"lines\" or \"base64\"");
    CHECK(error_for(with_path("/dev", {{"list", {"nvidia0", 1}}})).message == "paths./dev.list: expected an array of names");
    CHECK(error_for(with_path("/lib", {{"link", 5}})).message == "paths./lib.link: expected a string");
    CHECK(error_for(with_path("/dev/nvidia0", {{"open", true}})).message == "paths./dev/nvidia0.open: expected a string");
  }
  SECTION("helper runs") {
    json run = finished_run();
    run["mode"] = "sandbox";
    CHECK(error_for(with_run(run)).message == "helper_runs[0].mode: expected user-env, clean-env or nvml-only");
    run = finished_run();
    run.erase("status");
    CHECK(error_for(with_run(run)).message == "helper_runs[0].status: expected a string");
    run = finished_run();
    run["status"] = "exploded";
    CHECK(error_for(with_run(run)).message == "helper_runs[0].status: unknown helper status 'exploded'");
    run = finished_run();
    run["signal"] = "SIGSEGV";
    CHECK(error_for(with_run(run)).message == "helper_runs[0].signal: expected an integer");
    run = finished_run();
    run["output_cut"] = "no";
    CHECK(error_for(with_run(run)).message == "helper_runs[0].output_cut: expected true or false");
    run = finished_run();
    run["loader"] = json::array();
    CHECK(error_for(with_run(run)).message == "helper_runs[0].loader: expected a string");
    run = finished_run();
    run["reply"] = {{"lines", {"gpudoctor-helper\t1", nullptr}}};
    CHECK(error_for(with_run(run)).message == "helper_runs[0].reply.lines[1]: expected a string");
    json j = with_run(finished_run());
    j["helper_runs"].push_back(5);
    CHECK(error_for(j).message == "helper_runs[1]: expected an object");
  }
}

TEST_CASE("capture: unknown errno names and keys are refused", "[sys][capture]") {
  CHECK(error_for(with_path("/proc/driver/nvidia/version", {{"read", {{"error", "ENOTAGOODNAME"}}}})).message ==
        "paths./proc/driver/nvidia/version.read.error: unknown errno name 'ENOTAGOODNAME'");
  CHECK(error_for(with_path("/dev/nvidia0", {{"stat", {{"error", "EWHAT"}}}})).message ==
        "paths./dev/nvidia0.stat.error: unknown errno name 'EWHAT'");
  CHECK(error_for(with_path("/dev", {{"list", {{"error", 2}}}})).message == "paths./dev.list.error: expected a string");
  CHECK(error_for(with_path("/dev/nvidia0", {{"open", "denied"}})).message ==
        "paths./dev/nvidia0.open: expected \"ok\" or an errno name, got 'denied'");
  gd::Error unknown_key = error_for(with_path("/dev/nvidia0", {{"stat", {{"type", "char"}}}, {"opne", "ok"}}));
  CHECK(unknown_key.message == "paths./dev/nvidia0.opne: unknown key (expected read, ranges, list, stat, lstat, link, open)");
  CHECK(unknown_key.describe() ==
        "captures/broken.json: paths./dev/nvidia0.opne: unknown key (expected read, ranges, list, stat, lstat, link, open)");
}

TEST_CASE("capture: error answers read back as errors", "[sys][capture]") {
  json j = minimal();
  j["paths"]["/dev/nvidia-uvm"] = {{"stat", {{"error", "ENOENT"}}}, {"open", "ENOENT"}};
  j["paths"]["/proc/driver/nvidia/params"] = {{"read", {{"error", "EACCES"}}}};
  j["paths"]["/dev/nvidia9"] = {{"open", "E200"}};  // a code without a name
  auto capture = capture_from_json(j, k_file);
  REQUIRE(capture);
  const CapturedPath& uvm = capture->paths.at("/dev/nvidia-uvm");
  REQUIRE(uvm.stat);
  REQUIRE_FALSE(*uvm.stat);
  CHECK(uvm.stat->error().code == ENOENT);
  CHECK(uvm.open == ENOENT);
  CHECK(capture->paths.at("/proc/driver/nvidia/params").read->error().code == EACCES);
  CHECK(capture->paths.at("/dev/nvidia9").open == 200);
}

}  // namespace GD_UNITY_ID
