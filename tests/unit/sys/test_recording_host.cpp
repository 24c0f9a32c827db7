#include "sys/recording_host.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"
#include "util/errno_names.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::Host;
using gd::HelperOutcome;
using gd::HelperRequest;
using gd::RecordingHost;
using gd::ReplayHost;

namespace {

constexpr std::size_t k_max = 64 * 1024;

template <typename T, typename F>
std::string answer(const gd::IoResult<T>& result, F&& text) {
  return result ? text(*result) : "error " + gd::errno_name(result.error().code);
}

std::string stat_text(const gd::FileStat& st) {
  // Captures keep the size of regular files only: a folder's or a link's size is filesystem noise.
  std::string size = st.kind == gd::FileKind::regular ? fmt::format(" size {}", st.size) : "";
  return fmt::format("{} {:04o} {}:{} {}/{}{}", gd::to_string(st.kind), st.mode, st.uid, st.gid, st.major, st.minor, size);
}

/// Asks `host` every file question about each path and returns the answers as text, one line
/// per question, so two hosts can be compared answer by answer.
std::vector<std::string> ask_files(Host& host, const std::vector<std::string>& paths) {
  std::vector<std::string> answers;
  for (const std::string& path : paths) {
    auto quoted = [](const std::string& s) { return fmt::format("{:?}", s); };
    auto names = [](const std::vector<std::string>& list) { return fmt::format("[{}]", fmt::join(list, ",")); };
    answers.push_back(path + " read " + answer(host.read_file(path, k_max), quoted));
    answers.push_back(path + " list " + answer(host.list_dir(path), names));
    answers.push_back(path + " stat " + answer(host.stat(path), stat_text));
    answers.push_back(path + " lstat " + answer(host.lstat(path), stat_text));
    answers.push_back(path + " link " + answer(host.read_link(path), quoted));
    answers.push_back(path + " open " + gd::errno_name(host.open_device(path)));
  }
  return answers;
}

std::string outcome_text(const HelperOutcome& o) {
  return fmt::format("{} exit {} signal {} reply {:?} error {:?}", gd::to_string(o.status), o.exit_code, o.signal, o.reply,
                     o.error);
}

/// The other questions: environment, identity, uname and both helper runs.
std::vector<std::string> ask_rest(Host& host) {
  std::vector<std::string> answers;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "LD_PRELOAD"}) {
    answers.push_back(fmt::format("env {} = {}", name, host.env(name).value_or("<unset>")));
  }
  gd::Identity id = host.identity();
  answers.push_back(fmt::format("identity {} {} [{}]", id.uid, id.gid, fmt::join(id.groups, ",")));
  gd::Uname u = host.uname();
  answers.push_back(fmt::format("uname {} {} {}", u.sysname, u.release, u.machine));
  HelperRequest clean;
  clean.clean_env = true;
  answers.push_back("user-env " + outcome_text(host.run_cuda_helper(HelperRequest{})));
  answers.push_back("clean-env " + outcome_text(host.run_cuda_helper(clean)));
  return answers;
}

/// A capture that stands for a host with a failing first helper run and a working clean one.
Capture host_with_helper_runs() {
  Capture c;
  c.identity = gd::Identity{1000, 1000, {27, 44}};
  c.uname = gd::Uname{"Linux", "node", "6.8.0-45-generic", "#45", "x86_64"};
  c.env["CUDA_VISIBLE_DEVICES"] = "99";
  c.env["LD_PRELOAD"] = std::nullopt;
  HelperRequest clean;
  clean.clean_env = true;
  HelperOutcome first;
  first.status = HelperOutcome::Status::finished;
  first.reply = "gpudoctor-helper\t1\nstage\tcuInit\ncuda.init.result\t100\nstage\tdone\nend\tok\n";
  HelperOutcome second = first;
  second.reply = "gpudoctor-helper\t1\nstage\tcuInit\ncuda.init.result\t0\nstage\tdone\nend\tok\n";
  c.helper_runs.push_back({HelperRequest{}, first});
  c.helper_runs.push_back({clean, second});
  return c;
}

Capture through_json(const Capture& capture) {
  auto back = gd::capture_from_json(nlohmann::json::parse(gd::capture_to_json(capture).dump()), "recorded.json");
  if (!back) {
    throw std::runtime_error(back.error().describe());
  }
  return *back;
}

}  // namespace

TEST_CASE("recording host: every call lands in the capture", "[sys][recording_host]") {
  Capture source = host_with_helper_runs();
  source.paths["/proc/driver/nvidia/version"].read = std::string("NVRM version: ... 580.159.04 ...\n");
  ReplayHost inner(source);
  Capture recorded;
  RecordingHost host(inner, recorded);

  CHECK(host.read_file("/proc/driver/nvidia/version", k_max).has_value());
  CHECK_FALSE(host.read_file("/proc/driver/nvidia/params", k_max).has_value());
  CHECK(host.list_dir("/proc/driver").has_value());
  CHECK(host.stat("/proc/driver/nvidia").has_value());
  CHECK(host.lstat("/proc").has_value());
  CHECK_FALSE(host.read_link("/proc/driver/nvidia/version").has_value());
  CHECK(host.open_device("/dev/nvidia0") == ENOENT);
  CHECK(host.env("CUDA_VISIBLE_DEVICES") == "99");
  CHECK(host.env("LD_LIBRARY_PATH") == std::nullopt);
  CHECK(host.identity().uid == 1000);
  CHECK(host.uname().machine == "x86_64");
  CHECK(host.run_cuda_helper(HelperRequest{}).status == HelperOutcome::Status::finished);

  const auto& version = recorded.paths.at("/proc/driver/nvidia/version");
  REQUIRE(version.read);
  CHECK(**version.read == "NVRM version: ... 580.159.04 ...\n");
  REQUIRE(version.link);
  CHECK(version.link->error().code == EINVAL);
  CHECK(recorded.paths.at("/proc/driver/nvidia/params").read->error().code == ENOENT);
  CHECK(**recorded.paths.at("/proc/driver").list == std::vector<std::string>{"nvidia"});
  CHECK((**recorded.paths.at("/proc/driver/nvidia").stat).kind == gd::FileKind::directory);
  CHECK((**recorded.paths.at("/proc").lstat).kind == gd::FileKind::directory);
  CHECK(recorded.paths.at("/dev/nvidia0").open == ENOENT);
  CHECK(recorded.env.at("CUDA_VISIBLE_DEVICES") == "99");
  REQUIRE(recorded.env.contains("LD_LIBRARY_PATH"));  // asked and unset is recorded as unset
  CHECK(recorded.env.at("LD_LIBRARY_PATH") == std::nullopt);
  REQUIRE(recorded.identity);
  CHECK(recorded.identity->groups == std::vector<std::uint32_t>{27, 44});
  REQUIRE(recorded.uname);
  CHECK(recorded.uname->release == "6.8.0-45-generic");
  REQUIRE(recorded.helper_runs.size() == 1);
  CHECK_FALSE(recorded.helper_runs[0].request.clean_env);
  CHECK(recorded.helper_runs[0].outcome.reply.find("cuda.init.result\t100") != std::string::npos);
}

TEST_CASE("recording host: a refused variable is neither read nor recorded", "[sys][recording_host]") {
  ReplayHost inner(host_with_helper_runs());
  Capture recorded;
  RecordingHost host(inner, recorded);
  CHECK_THROWS_AS(host.env("HF_TOKEN"), std::logic_error);
  CHECK(recorded.env.empty());
}

TEST_CASE("recording host: replaying a recorded run gives the same answers", "[sys][recording_host]") {
  gd::test::TempTree tree;
  tree.file("/proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n");
  tree.file("/etc/ld.so.cache", std::string("ld.so-1.7.0\0\xff\xfe", 14));
  tree.file("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", "fake libcuda");
  tree.link("/usr/lib/x86_64-linux-gnu/libcuda.so.1", "libcuda.so.580.159.04");
  tree.link("/lib", "usr/lib");
  tree.link("/etc/alternatives/libcuda", "/lib/x86_64-linux-gnu/libcuda.so.1");
  tree.link("/loop", "loop");
  tree.fifo("/run/nvidia-persistenced/fifo");
  tree.dir("/dev/empty");

  const std::vector<std::string> paths = {
      "/", "/proc/driver/nvidia", "/proc/driver/nvidia/version", "/etc/ld.so.cache", "/lib/x86_64-linux-gnu/libcuda.so.1",
      "/etc/alternatives/libcuda", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/loop", "/run/nvidia-persistenced/fifo",
      "/dev/empty", "/dev/nvidia0", "/proc/driver/nvidia/version/x"};

  gd::RealHost real(tree.root(), {});
  Capture capture;
  RecordingHost recording(real, capture);
  std::vector<std::string> live = ask_files(recording, paths);
  HelperOutcome helper = recording.run_cuda_helper(HelperRequest{});
  CHECK(helper.status == HelperOutcome::Status::not_run);  // --root never runs the helper

  // A sample of the live answers, so the comparison below compares something meaningful.
  CHECK(live[0] == "/ read error EISDIR");
  CHECK(std::find(live.begin(), live.end(), "/loop stat error ELOOP") != live.end());
  CHECK(std::find(live.begin(), live.end(), "/run/nvidia-persistenced/fifo read error ENXIO") != live.end());
  CHECK(std::find(live.begin(), live.end(), "/etc/alternatives/libcuda read \"fake libcuda\"") != live.end());

  for (Capture replayed : {capture, through_json(capture)}) {
    ReplayHost replay(replayed);
    CHECK(ask_files(replay, paths) == live);
    HelperOutcome again = replay.run_cuda_helper(HelperRequest{});
    CHECK(outcome_text(again) == outcome_text(helper));
  }
}

TEST_CASE("recording host: other processes' open files are kept only where they are NVIDIA device nodes",
          "[sys][recording_host][privacy]") {
  gd::test::TempTree tree;
  tree.link("/proc/4242/fd/3", "/home/alice/merger-plan.docx");
  tree.link("/proc/4242/fd/4", "/dev/nvidia0");
  tree.link("/proc/4242/fd/5", "/dev/nvidia-uvm");
  tree.link("/proc/4242/fd/6", "socket:[98765]");
  tree.link("/proc/self/fd/7", "/tmp/gpudoctor-report.json");
  tree.link("/proc/4242/cwd", "/home/alice");  // not an open file: kept as it is
  tree.link("/proc/4242/fdinfo/3", "/home/alice/not-a-real-link");
  gd::RealHost real(tree.root(), {});
  Capture capture;
  RecordingHost recording(real, capture);
  // The run itself sees every target as it is.
  CHECK(*recording.read_link("/proc/4242/fd/3") == "/home/alice/merger-plan.docx");
  CHECK(*recording.read_link("/proc/4242/fd/4") == "/dev/nvidia0");
  CHECK(*recording.read_link("/proc/4242/fd/5") == "/dev/nvidia-uvm");
  CHECK(*recording.read_link("/proc/4242/fd/6") == "socket:[98765]");
  CHECK(*recording.read_link("/proc/self/fd/7") == "/tmp/gpudoctor-report.json");
  CHECK(*recording.read_link("/proc/4242/cwd") == "/home/alice");
  CHECK(*recording.read_link("/proc/4242/fdinfo/3") == "/home/alice/not-a-real-link");
  CHECK_FALSE(recording.read_link("/proc/4242/fd/99").has_value());
  // The capture keeps the device nodes, and a stand-in for the rest.
  auto kept = [&](const char* path) { return **capture.paths.at(path).link; };
  CHECK(kept("/proc/4242/fd/3") == gd::k_capture_other_open_file);
  CHECK(kept("/proc/4242/fd/4") == "/dev/nvidia0");
  CHECK(kept("/proc/4242/fd/5") == "/dev/nvidia-uvm");
  CHECK(kept("/proc/4242/fd/6") == gd::k_capture_other_open_file);
  CHECK(kept("/proc/self/fd/7") == gd::k_capture_other_open_file);
  CHECK(kept("/proc/4242/cwd") == "/home/alice");
  CHECK(kept("/proc/4242/fdinfo/3") == "/home/alice/not-a-real-link");
  CHECK(capture.paths.at("/proc/4242/fd/99").link->error().code == ENOENT);
  // Nothing of the file's name is left in the capture's JSON.
  CHECK(gd::capture_to_json(capture).dump().find("merger-plan") == std::string::npos);
}

TEST_CASE("recording host: environment, identity, uname and helper runs replay the same", "[sys][recording_host]") {
  ReplayHost inner(host_with_helper_runs());
  Capture capture;
  RecordingHost recording(inner, capture);
  std::vector<std::string> live = ask_rest(recording);
  CHECK(live[0] == "env CUDA_VISIBLE_DEVICES = 99");
  CHECK(capture.helper_runs.size() == 2);

  for (Capture replayed : {capture, through_json(capture)}) {
    ReplayHost replay(replayed);
    CHECK(ask_rest(replay) == live);
  }
}

}  // namespace GD_UNITY_ID
