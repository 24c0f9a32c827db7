#include "sys/replay_host.hpp"

#include <catch2/catch.hpp>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <vector>

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::Capture;
using gd::FileKind;
using gd::FileStat;
using gd::HelperOutcome;
using gd::HelperRequest;
using gd::IoError;
using gd::ReplayHost;

namespace {

using Names = std::vector<std::string>;

constexpr std::size_t k_any_size = 1 << 20;
constexpr std::string_view k_version_file =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
    "GCC version:  gcc version 15.3.0 (GCC) \n";

/// The errno of a failed answer; 0 when it succeeded (so a CHECK shows which one came back).
template <typename T>
int error_of(const gd::IoResult<T>& result) {
  return result ? 0 : result.error().code;
}

FileStat char_device(std::uint32_t major, std::uint32_t minor, std::uint32_t mode) {
  FileStat st;
  st.kind = FileKind::char_device;
  st.major = major;
  st.minor = minor;
  st.mode = mode;
  return st;
}

/// A small H200 host as a hand-written capture: the proc files, device nodes and the libcuda
/// links of a Debian-style merged-/usr system.
Capture h200_host() {
  Capture c;
  c.paths["/proc/driver/nvidia/version"].read = std::string(k_version_file);
  c.paths["/proc/driver/nvidia/gpus/0000:18:00.0/information"].read = std::string("Model: \t\t NVIDIA H200\n");
  c.paths["/proc/driver/nvidia/params"].read = std::unexpected(IoError{EACCES});
  c.paths["/dev/nvidia0"].stat = char_device(195, 0, 0666);
  c.paths["/dev/nvidia0"].open = 0;
  c.paths["/dev/nvidiactl"].stat = char_device(195, 255, 0666);
  c.paths["/dev/nvidia-uvm"].stat = char_device(238, 0, 0666);
  c.paths["/dev/nvidia-uvm"].open = EPERM;  // a cgroup device rule denies it
  c.paths["/lib"].link = "usr/lib";
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"].read = std::string("\x7f" "ELF fake libcuda");
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so.1"].link = "libcuda.so.580.159.04";
  c.paths["/usr/lib/x86_64-linux-gnu/libcuda.so"].link = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  c.paths["/usr/lib64/libcuda.so.1"].link = "../lib/x86_64-linux-gnu/libcuda.so.1";
  c.paths["/dev/char/195:0"].link = "../nvidia0";
  c.paths["/loop/a"].link = "b";
  c.paths["/loop/b"].link = "/loop/a";
  c.paths["/loop/self"].link = "self";
  c.paths["/loop/dangling"].link = "/nowhere";
  c.paths["/etc/os-release-dir"].list = Names{};  // an empty folder, as list_dir recorded it
  c.env["CUDA_VISIBLE_DEVICES"] = "99";
  c.env["LD_PRELOAD"] = std::nullopt;
  c.env["HF_TOKEN"] = "hf_secret";  // a hand-edited capture must not leak it either
  return c;
}

HelperOutcome outcome(HelperOutcome::Status status, std::string reply) {
  HelperOutcome o;
  o.status = status;
  o.reply = std::move(reply);
  return o;
}

}  // namespace

TEST_CASE("replay host: file content and the stat it implies", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  auto text = host.read_file("/proc/driver/nvidia/version", k_any_size);
  REQUIRE(text);
  CHECK(*text == k_version_file);
  CHECK(host.read_file("/proc/driver/nvidia/version", 12) == std::string("NVRM version"));
  CHECK(host.read_file("/proc/driver/nvidia/version", 0) == std::string());

  auto st = host.stat("/proc/driver/nvidia/version");
  REQUIRE(st);
  CHECK(st->kind == FileKind::regular);
  CHECK(st->size == k_version_file.size());
  CHECK(st->mode == 0644);
  CHECK(host.lstat("/proc/driver/nvidia/version")->kind == FileKind::regular);
  CHECK(error_of(host.read_link("/proc/driver/nvidia/version")) == EINVAL);  // exists, not a link
  CHECK(error_of(host.list_dir("/proc/driver/nvidia/version")) == ENOTDIR);
  CHECK(host.open_device("/proc/driver/nvidia/version") == ENODEV);
}

TEST_CASE("replay host: folders are implied by the paths below them", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  for (const char* dir : {"/", "/proc", "/proc/driver", "/proc/driver/nvidia/gpus", "/dev", "/usr/lib"}) {
    CAPTURE(dir);
    auto st = host.stat(dir);
    REQUIRE(st);
    CHECK(st->kind == FileKind::directory);
    CHECK(st->mode == 0755);
    CHECK(error_of(host.read_file(dir, k_any_size)) == EISDIR);
  }
  CHECK(host.list_dir("/proc/driver/nvidia") == Names{"gpus", "params", "version"});
  CHECK(host.list_dir("/proc/driver/nvidia/gpus") == Names{"0000:18:00.0"});
  CHECK(host.list_dir("/proc/driver/nvidia/") == Names{"gpus", "params", "version"});
  CHECK(host.list_dir("/dev") == Names{"char", "nvidia-uvm", "nvidia0", "nvidiactl"});
  CHECK(host.list_dir("/") == Names{"dev", "etc", "lib", "loop", "proc", "usr"});
  CHECK(host.list_dir("/etc/os-release-dir") == Names{});
  // "/dev/nvidia" is a prefix of "/dev/nvidia0", not a folder.
  CHECK(error_of(host.list_dir("/dev/nvidia")) == ENOENT);
  CHECK(error_of(host.stat("/dev/nvidia")) == ENOENT);
}

TEST_CASE("replay host: what the capture does not mention does not exist", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  for (const char* path : {"/etc/os-release", "/proc/driver/nvidia/gpus/0000:2a:00.0", "/dev/nvidia1", "/nonexistent"}) {
    CAPTURE(path);
    CHECK(error_of(host.read_file(path, k_any_size)) == ENOENT);
    CHECK(error_of(host.list_dir(path)) == ENOENT);
    CHECK(error_of(host.stat(path)) == ENOENT);
    CHECK(error_of(host.lstat(path)) == ENOENT);
    CHECK(error_of(host.read_link(path)) == ENOENT);
    CHECK(host.open_device(path) == ENOENT);
  }
}

TEST_CASE("replay host: recorded errors come back as recorded", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  CHECK(error_of(host.read_file("/proc/driver/nvidia/params", k_any_size)) == EACCES);
  CHECK(error_of(host.stat("/proc/driver/nvidia/params")) == EACCES);
}

TEST_CASE("replay host: device nodes", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  auto st = host.stat("/dev/nvidiactl");
  REQUIRE(st);
  CHECK(st->kind == FileKind::char_device);
  CHECK(st->major == 195);
  CHECK(st->minor == 255);
  CHECK(st->mode == 0666);
  CHECK(host.open_device("/dev/nvidia0") == 0);      // recorded
  CHECK(host.open_device("/dev/nvidiactl") == 0);    // a char device without a recorded open
  CHECK(host.open_device("/dev/nvidia-uvm") == EPERM);
  CHECK(host.open_device("/dev") == ENODEV);
  CHECK(host.open_device("/dev/char/195:0") == 0);  // through a link to the node
  CHECK(error_of(host.read_file("/dev/nvidia0", k_any_size)) == ENXIO);  // never read a device
}

TEST_CASE("replay host: links are followed like the kernel does", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  const std::string libcuda = "\x7f" "ELF fake libcuda";

  auto lst = host.lstat("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
  REQUIRE(lst);
  CHECK(lst->kind == FileKind::symlink);
  CHECK(host.read_link("/usr/lib/x86_64-linux-gnu/libcuda.so.1") == std::string("libcuda.so.580.159.04"));

  for (const char* path : {"/usr/lib/x86_64-linux-gnu/libcuda.so.1",   // relative, same folder
                           "/usr/lib/x86_64-linux-gnu/libcuda.so",     // absolute, then relative
                           "/usr/lib64/libcuda.so.1"}) {               // "../" in the target
    CAPTURE(path);
    auto st = host.stat(path);
    REQUIRE(st);
    CHECK(st->kind == FileKind::regular);
    CHECK(st->size == libcuda.size());
    CHECK(host.read_file(path, k_any_size) == libcuda);
  }
  // A link in the top folder (merged /usr): "/lib" -> "usr/lib".
  auto lib = host.stat("/lib");
  REQUIRE(lib);
  CHECK(lib->kind == FileKind::directory);
  CHECK(host.list_dir("/lib") == Names{"x86_64-linux-gnu"});
  CHECK(host.lstat("/lib")->kind == FileKind::symlink);
}

TEST_CASE("replay host: link loops end with ELOOP, dangling links with ENOENT", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  for (const char* path : {"/loop/a", "/loop/b", "/loop/self"}) {
    CAPTURE(path);
    CHECK(error_of(host.stat(path)) == ELOOP);
    CHECK(error_of(host.read_file(path, k_any_size)) == ELOOP);
    CHECK(host.open_device(path) == ELOOP);
    CHECK(host.lstat(path)->kind == FileKind::symlink);  // the link itself is fine
  }
  CHECK(error_of(host.stat("/loop/dangling")) == ENOENT);
  CHECK(error_of(host.read_file("/loop/dangling", k_any_size)) == ENOENT);
  CHECK(host.read_link("/loop/dangling") == std::string("/nowhere"));
}

TEST_CASE("replay host: only allowlisted variables can be asked", "[sys][replay_host]") {
  ReplayHost host(h200_host());
  CHECK(host.env("CUDA_VISIBLE_DEVICES") == "99");
  CHECK(host.env("LD_PRELOAD") == std::nullopt);      // recorded as unset
  CHECK(host.env("LD_LIBRARY_PATH") == std::nullopt); // not recorded at all
  CHECK_THROWS_AS(host.env("HF_TOKEN"), std::logic_error);
  CHECK_THROWS_AS(host.env("AWS_SECRET_ACCESS_KEY"), std::logic_error);
  CHECK_THROWS_WITH(host.env("HOME"), Catch::Contains("'HOME' is not on the allowlist"));
}

TEST_CASE("replay host: identity and uname", "[sys][replay_host]") {
  Capture c;
  ReplayHost bare(c);
  CHECK(bare.identity().uid == 0);
  CHECK(bare.uname().sysname == "Linux");
  CHECK(bare.uname().machine.empty());

  c.identity = gd::Identity{1000, 1000, {44}};
  c.uname = gd::Uname{"Linux", "node", "6.8.0-45-generic", "#45", "aarch64"};
  ReplayHost host(c);
  CHECK(host.identity().uid == 1000);
  CHECK(host.identity().groups == std::vector<std::uint32_t>{44});
  CHECK(host.uname().machine == "aarch64");
  CHECK(host.uname().release == "6.8.0-45-generic");
}

TEST_CASE("replay host: helper runs are matched by mode", "[sys][replay_host]") {
  Capture c;
  HelperRequest clean_request;
  clean_request.clean_env = true;
  // The clean-env run first, to show the order in the capture does not matter.
  c.helper_runs.push_back({clean_request, outcome(HelperOutcome::Status::finished, "clean\n")});
  c.helper_runs.push_back({HelperRequest{}, outcome(HelperOutcome::Status::timed_out, "user\n")});
  HelperRequest nvml_request;
  nvml_request.nvml_only = true;
  nvml_request.timeout_ms = 2000;
  c.helper_runs.push_back({nvml_request, outcome(HelperOutcome::Status::finished, "nvml\n")});
  ReplayHost host(c);

  HelperOutcome user = host.run_cuda_helper(HelperRequest{});
  CHECK(user.status == HelperOutcome::Status::timed_out);
  CHECK(user.reply == "user\n");
  HelperOutcome clean = host.run_cuda_helper(clean_request);
  CHECK(clean.status == HelperOutcome::Status::finished);
  CHECK(clean.reply == "clean\n");
  HelperOutcome nvml = host.run_cuda_helper(nvml_request);
  CHECK(nvml.reply == "nvml\n");
  CHECK(nvml.timeout_ms == 2000);  // the limit the recorded run had
}

TEST_CASE("replay host: a helper run the capture lacks was not run", "[sys][replay_host]") {
  Capture c;
  c.helper_runs.push_back({HelperRequest{}, outcome(HelperOutcome::Status::finished, "user\n")});
  ReplayHost host(c);
  HelperRequest clean_request;
  clean_request.clean_env = true;
  HelperOutcome clean = host.run_cuda_helper(clean_request);
  CHECK(clean.status == HelperOutcome::Status::not_run);
  CHECK(clean.error == "the capture holds no clean-env helper run");

  ReplayHost empty(Capture{});
  HelperOutcome user = empty.run_cuda_helper(HelperRequest{});
  CHECK(user.status == HelperOutcome::Status::not_run);
  CHECK(user.error == "the capture holds no user-env helper run");
}

}  // namespace GD_UNITY_ID
