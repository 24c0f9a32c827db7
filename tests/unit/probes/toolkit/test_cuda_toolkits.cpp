#include "probes/toolkit/cuda_toolkits.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fact_access.hpp"
#include "ldconfig_tree.hpp"
#include "core/fact_key.hpp"
#include "probes/toolkit/cuda_version_file.hpp"
#include "probes/toolkit/nvcc_host_compiler.hpp"
#include "probes/toolkit/nvcc_host_config.hpp"
#include "sys/real_host.hpp"
#include "sys/replay_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::list_of;
using gd::test::reason_of;
using gd::test::state_of;
using gd::test::TempTree;
using List = std::vector<std::string>;

namespace {

constexpr std::string_view k_no_version = "no version file; nvcc is not run";

/// The bytes of tests/fixtures/cuda-toolkit/<name> (README.md there says where they come from).
std::string toolkit_fixture(std::string_view name) {
  std::string path = std::string(GD_SOURCE_DIR) + "/tests/fixtures/cuda-toolkit/" + std::string(name);
  std::string bytes = gd::test::read_whole(path);
  if (bytes.empty()) {
    throw std::runtime_error("missing fixture " + path);
  }
  return bytes;
}

/// The variables the probe reads, set for one test and put back afterwards (RealHost reads the
/// process environment). A name given no value is unset for the test.
class EnvScope {
 public:
  explicit EnvScope(std::map<std::string, std::string> values) {
    for (const char* name : {"PATH", "CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX", "CC", "NVCC_CCBIN"}) {
      const char* old = std::getenv(name);
      m_saved[name] = old ? std::optional<std::string>(old) : std::nullopt;
      auto it = values.find(name);
      if (it != values.end()) {
        ::setenv(name, it->second.c_str(), 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  ~EnvScope() {
    for (const auto& [name, value] : m_saved) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;

 private:
  std::map<std::string, std::optional<std::string>> m_saved;
};

/// A program file (content does not matter: nothing is run) with the execute bits PATH lookup needs.
void program(const TempTree& tree, const std::string& path) {
  tree.file(path, "#!/bin/sh\n");
  ::chmod(tree.at(path).c_str(), 0755);
}

/// A toolkit folder: bin/nvcc and, when given, the real host_config.h excerpt under targets/.
void toolkit(const TempTree& tree, const std::string& root, bool with_host_config = true) {
  program(tree, root + "/bin/nvcc");
  if (with_host_config) {
    tree.file(root + "/targets/x86_64-linux/include/crt/host_config.h",
              toolkit_fixture("host_config.h.cuda-13.0.excerpt"));
  }
}

/// Debian's gcc layout: gcc -> gcc-<N> -> x86_64-linux-gnu-gcc-<N>, relative links.
void debian_gcc(const TempTree& tree, int major) {
  std::string real = "x86_64-linux-gnu-gcc-" + std::to_string(major);
  program(tree, "/usr/bin/" + real);
  tree.link("/usr/bin/gcc-" + std::to_string(major), real);
  tree.link("/usr/bin/gcc", "gcc-" + std::to_string(major));
}

FactSet run_on(const TempTree& tree) {
  gd::RealHost host(tree.root(), {});
  FactSet facts;
  facts.set("host.arch"_fact, std::string("x86_64"), "uname");  // what the system probe leaves
  gd::probe_cuda_toolkits(host, gd::ProbeOptions{}, facts);
  return facts;
}

}  // namespace

// ---- the parsers, on real-format input ----

TEST_CASE("toolkits: version.json gives the release and nvcc's own version", "[probes][toolkits]") {
  auto parsed = gd::parse_cuda_version_json(toolkit_fixture("version.json.cuda-13.3.1"));
  REQUIRE(parsed);
  CHECK(parsed->toolkit == "13.3.1");
  CHECK(parsed->nvcc == "13.3.73");
  // A toolkit without the compiler component still names its release.
  auto runtime_only = gd::parse_cuda_version_json(R"({"cuda" : {"name" : "CUDA SDK", "version" : "11.8.20220929"}})");
  REQUIRE(runtime_only);
  CHECK(runtime_only->toolkit == "11.8.20220929");
  CHECK(runtime_only->nvcc.empty());
  CHECK_FALSE(gd::parse_cuda_version_json("CUDA Version 10.2.89"));
  CHECK_FALSE(gd::parse_cuda_version_json(R"({"nvidia_driver" : {"version" : "610.43.02"}})"));
}

TEST_CASE("toolkits: version.txt, conda records, wheel folders and cuda.h", "[probes][toolkits]") {
  CHECK(gd::parse_cuda_version_txt("CUDA Version 10.2.89\n") == "10.2.89");
  CHECK(gd::parse_cuda_version_txt("CUDA Version 9.0.176") == "9.0.176");
  CHECK(gd::parse_cuda_version_txt("CUDA Version ten") == std::nullopt);
  CHECK(gd::parse_cuda_version_txt("{\"cuda\": {}}") == std::nullopt);

  CHECK(gd::conda_nvcc_version("cuda-nvcc-12.4.131-0.json") == "12.4.131");
  CHECK(gd::conda_nvcc_version("cuda-nvcc-12.9.86-he02047a_1.json") == "12.9.86");
  CHECK(gd::conda_nvcc_version("cuda-nvcc-tools-12.4.131-0.json") == std::nullopt);
  CHECK(gd::conda_nvcc_version("cuda-nvcc-impl-12.4.131-0.json") == std::nullopt);
  CHECK(gd::conda_nvcc_version("cuda-nvcc_linux-64-12.4.131-0.json") == std::nullopt);

  CHECK(gd::wheel_nvcc_version("nvidia_cuda_nvcc-13.0.88.dist-info") == "13.0.88");  // this machine's toolkit
  CHECK(gd::wheel_nvcc_version("nvidia_cuda_nvcc_cu12-12.4.131.dist-info") == "12.4.131");
  CHECK(gd::wheel_nvcc_version("nvidia_cuda_nvrtc-13.0.88.dist-info") == std::nullopt);
  CHECK(gd::wheel_nvcc_version("nvidia_cuda_nvcc-13.0.88") == std::nullopt);

  CHECK(gd::cuda_h_version("#define __CUDA_API_VERSION_INTERNAL 1\n#define CUDA_VERSION 13000\n") == "13.0");
  CHECK(gd::cuda_h_version("#define CUDA_VERSION 12080\n") == "12.8");
  CHECK(gd::cuda_h_version("#define CUDA_VERSION_MAJOR 13\n") == std::nullopt);
}

TEST_CASE("toolkits: host_config.h names the newest gcc", "[probes][toolkits]") {
  std::string excerpt = toolkit_fixture("host_config.h.cuda-13.0.excerpt");
  CHECK(gd::parse_max_gcc_major(excerpt) == 15);
  // The #endif comment repeats the condition; alone it is no check.
  CHECK(gd::parse_max_gcc_major("#endif /* __GNUC__ > 15 */\n") == std::nullopt);
  // A limit not followed by nvcc's GNU error is not the compiler limit (the clang checks are skipped).
  CHECK(gd::parse_max_gcc_major("#if __GNUC__ > 9\n#define X 1\n#endif\n") == std::nullopt);
  CHECK(gd::parse_max_gcc_major("#if __GNUC__ >= 14\n\n"
                                "#error -- unsupported GNU version! gcc versions later than 13 are not supported!\n") ==
        13);
}

TEST_CASE("toolkits: gcc's major from the file its links lead to", "[probes][toolkits]") {
  CHECK(gd::gcc_major_from_file_name("x86_64-linux-gnu-gcc-13") == 13);
  CHECK(gd::gcc_major_from_file_name("gcc-12") == 12);
  CHECK(gd::gcc_major_from_file_name("g++-14") == 14);
  CHECK(gd::gcc_major_from_file_name("gcc-13.2") == 13);
  CHECK(gd::gcc_major_from_file_name("gcc") == std::nullopt);
  CHECK(gd::gcc_major_from_file_name("gcc-ar-13") == std::nullopt);
  CHECK(gd::compiler_family("x86_64-linux-gnu-gcc-13") == "gcc");
  CHECK(gd::compiler_family("cc") == "gcc");
  CHECK(gd::compiler_family("clang-18") == "clang");
  CHECK(gd::compiler_family("ccache") == "");
}

// ---- the probe on temporary roots ----

TEST_CASE("toolkits: none found", "[probes][toolkits]") {
  TempTree tree;
  tree.dir("/usr/local/bin");
  debian_gcc(tree, 12);
  EnvScope env({{"PATH", "/usr/local/bin:/usr/bin"}});
  FactSet facts = run_on(tree);
  CHECK(list_of(facts, "toolkit.list"_fact).empty());
  CHECK(facts.get_int("toolkit.count"_fact) == 0);
  CHECK(state_of(facts, "toolkit.nvcc_on_path"_fact) == FactState::absent);
  CHECK(state_of(facts, "toolkit.cuda_home"_fact) == FactState::absent);
  CHECK(state_of(facts, "toolkit.build.path"_fact) == FactState::absent);
  CHECK(state_of(facts, "toolkit.build.version"_fact) == FactState::absent);
  CHECK(state_of(facts, "toolkit.build.host_compiler"_fact) == FactState::absent);
}

TEST_CASE("toolkits: /usr/local/cuda links to cuda-13.0", "[probes][toolkits]") {
  TempTree tree;
  toolkit(tree, "/usr/local/cuda-13.0");
  tree.file("/usr/local/cuda-13.0/version.json", toolkit_fixture("version.json.cuda-13.3.1"));
  tree.link("/usr/local/cuda", "cuda-13.0");
  debian_gcc(tree, 16);
  EnvScope env({{"PATH", "/usr/bin"}});  // nvcc is not on PATH: torch's last guess decides
  FactSet facts = run_on(tree);
  CHECK(list_of(facts, "toolkit.list"_fact) == List{"/usr/local/cuda-13.0 13.3.73 (/usr/local/cuda, /usr/local/cuda-*)"});
  CHECK(facts.get_int("toolkit.count"_fact) == 1);
  CHECK(state_of(facts, "toolkit.nvcc_on_path"_fact) == FactState::absent);
  CHECK(facts.get_string("toolkit.build.path"_fact) == "/usr/local/cuda");
  CHECK(facts.get_string("toolkit.build.via"_fact) == "/usr/local/cuda");
  CHECK(facts.get_bool("toolkit.build.has_nvcc"_fact) == true);
  CHECK(facts.get_string("toolkit.build.root"_fact) == "/usr/local/cuda-13.0");
  // nvcc's own version, not the release's 13.3.1
  CHECK(facts.get_string("toolkit.build.version"_fact) == "13.3.73");
  CHECK(facts.find("toolkit.build.version"_fact)->source == "/usr/local/cuda-13.0/version.json cuda_nvcc");
  CHECK(facts.get_int("toolkit.build.max_gcc_major"_fact) == 15);
  CHECK(facts.get_string("toolkit.build.host_compiler"_fact) == "gcc 16 (/usr/bin/x86_64-linux-gnu-gcc-16)");
  CHECK(facts.get_int("toolkit.build.host_compiler_major"_fact) == 16);
  CHECK(facts.get_bool("toolkit.build.host_compiler_unsupported"_fact) == true);

  // The same toolkit with the gcc it supports.
  TempTree supported;
  toolkit(supported, "/usr/local/cuda-13.0");
  supported.file("/usr/local/cuda-13.0/version.json", toolkit_fixture("version.json.cuda-13.3.1"));
  supported.link("/usr/local/cuda", "/usr/local/cuda-13.0");  // absolute this time
  debian_gcc(supported, 15);
  facts = run_on(supported);
  CHECK(facts.get_string("toolkit.build.root"_fact) == "/usr/local/cuda-13.0");
  CHECK(facts.get_int("toolkit.build.host_compiler_major"_fact) == 15);
  CHECK(facts.get_bool("toolkit.build.host_compiler_unsupported"_fact) == false);
}

TEST_CASE("toolkits: CUDA_HOME pointing elsewhere wins", "[probes][toolkits]") {
  TempTree tree;
  toolkit(tree, "/usr/local/cuda-13.0");
  tree.file("/usr/local/cuda-13.0/version.json", toolkit_fixture("version.json.cuda-13.3.1"));
  tree.link("/usr/local/cuda", "cuda-13.0");
  toolkit(tree, "/opt/toolkits/cuda-10.2", /*with_host_config=*/false);
  tree.file("/opt/toolkits/cuda-10.2/version.txt", "CUDA Version 10.2.89\n");
  debian_gcc(tree, 12);
  {
    EnvScope env({{"PATH", "/usr/local/cuda/bin:/usr/bin"},
                  {"CUDA_HOME", "/opt/toolkits/cuda-10.2"},
                  {"CUDA_PATH", "/usr/local/cuda"}});
    FactSet facts = run_on(tree);
    CHECK(facts.get_string("toolkit.cuda_home"_fact) == "/opt/toolkits/cuda-10.2");
    CHECK(facts.get_string("toolkit.nvcc_on_path"_fact) == "/usr/local/cuda/bin/nvcc");
    CHECK(list_of(facts, "toolkit.list"_fact) ==
          List{"/opt/toolkits/cuda-10.2 10.2.89 (CUDA_HOME)",
               "/usr/local/cuda-13.0 13.3.73 (CUDA_PATH, PATH, /usr/local/cuda, /usr/local/cuda-*)"});
    CHECK(facts.get_string("toolkit.build.via"_fact) == "CUDA_HOME");
    CHECK(facts.get_string("toolkit.build.path"_fact) == "/opt/toolkits/cuda-10.2");
    CHECK(facts.get_string("toolkit.build.version"_fact) == "10.2.89");
    CHECK(facts.find("toolkit.build.version"_fact)->source == "/opt/toolkits/cuda-10.2/version.txt");
    // This toolkit keeps no crt/host_config.h: its gcc limit cannot be told.
    CHECK(state_of(facts, "toolkit.build.max_gcc_major"_fact) == FactState::unknown);
    CHECK(state_of(facts, "toolkit.build.host_compiler_unsupported"_fact) == FactState::unknown);
    CHECK(facts.get_int("toolkit.build.host_compiler_major"_fact) == 12);
  }
  {
    // An empty CUDA_HOME does not count: torch's `or` moves on to CUDA_PATH.
    EnvScope env({{"PATH", "/usr/bin"}, {"CUDA_HOME", ""}, {"CUDA_PATH", "/opt/toolkits/cuda-10.2"}});
    FactSet facts = run_on(tree);
    CHECK(facts.get_string("toolkit.cuda_home"_fact) == "/opt/toolkits/cuda-10.2");
    CHECK(facts.get_string("toolkit.build.via"_fact) == "CUDA_PATH");
    CHECK(facts.get_string("toolkit.build.version"_fact) == "10.2.89");
  }
  {
    // A CUDA_HOME without nvcc is still what torch takes; the build then fails.
    EnvScope env({{"PATH", "/usr/local/cuda/bin:/usr/bin"}, {"CUDA_HOME", "/opt/cuda-12.1"}});
    FactSet facts = run_on(tree);
    CHECK(facts.get_string("toolkit.build.path"_fact) == "/opt/cuda-12.1");
    CHECK(facts.get_bool("toolkit.build.has_nvcc"_fact) == false);
    CHECK(state_of(facts, "toolkit.build.version"_fact) == FactState::absent);
    CHECK(state_of(facts, "toolkit.build.host_compiler_unsupported"_fact) == FactState::absent);
  }
}

TEST_CASE("toolkits: nvcc on PATH only", "[probes][toolkits]") {
  TempTree tree;
  // A link on PATH, relative, into a toolkit no file names the version of.
  toolkit(tree, "/opt/nv");
  tree.link("/home/u/bin/nvcc", "../../../opt/nv/bin/nvcc");
  // A pip-installed nvcc: site-packages/nvidia/cu13 is the root, the wheel's dist-info beside nvidia/.
  std::string site = "/home/u/venv/lib/python3.12/site-packages";
  toolkit(tree, site + "/nvidia/cu13");
  tree.dir(site + "/nvidia_cuda_nvcc-13.0.88.dist-info");
  tree.dir(site + "/nvidia_cuda_runtime-13.0.96.dist-info");
  debian_gcc(tree, 13);
  {
    EnvScope env({{"PATH", "/home/u/bin:/usr/bin"}});
    FactSet facts = run_on(tree);
    CHECK(facts.get_string("toolkit.nvcc_on_path"_fact) == "/home/u/bin/nvcc");
    CHECK(list_of(facts, "toolkit.list"_fact) == List{"/opt/nv unknown: " + std::string(k_no_version) + " (PATH)"});
    // torch does not follow the link: CUDA_HOME is the folder above PATH's folder.
    CHECK(facts.get_string("toolkit.build.path"_fact) == "/home/u");
    CHECK(facts.get_string("toolkit.build.via"_fact) == "PATH");
    CHECK(facts.get_bool("toolkit.build.has_nvcc"_fact) == true);
    CHECK(facts.get_string("toolkit.build.root"_fact) == "/opt/nv");
    CHECK(state_of(facts, "toolkit.build.version"_fact) == FactState::unknown);
    CHECK(reason_of(facts, "toolkit.build.version"_fact) == k_no_version);
    CHECK(facts.get_int("toolkit.build.max_gcc_major"_fact) == 15);
    CHECK(facts.get_bool("toolkit.build.host_compiler_unsupported"_fact) == false);
  }
  {
    EnvScope env({{"PATH", site + "/nvidia/cu13/bin:/usr/bin"}});
    FactSet facts = run_on(tree);
    CHECK(facts.get_string("toolkit.build.path"_fact) == site + "/nvidia/cu13");
    CHECK(facts.get_string("toolkit.build.version"_fact) == "13.0.88");
    CHECK(facts.find("toolkit.build.version"_fact)->source == site + "/nvidia_cuda_nvcc-13.0.88.dist-info");
  }
  {
    // A folder on PATH without the execute bit set on its nvcc is skipped, as the shell skips it.
    TempTree plain;
    plain.file("/opt/x/bin/nvcc", "not executable");
    EnvScope env({{"PATH", "/opt/x/bin"}});
    FactSet facts = run_on(plain);
    CHECK(state_of(facts, "toolkit.nvcc_on_path"_fact) == FactState::absent);
  }
}

TEST_CASE("toolkits: conda's cuda-nvcc", "[probes][toolkits]") {
  TempTree tree;
  std::string prefix = "/opt/conda/envs/ml";
  toolkit(tree, prefix);
  tree.file(prefix + "/conda-meta/cuda-nvcc-12.4.131-0.json", "{}");
  tree.file(prefix + "/conda-meta/cuda-cudart-12.4.127-0.json", "{}");
  tree.file(prefix + "/conda-meta/python-3.12.4-h5148396_1.json", "{}");
  debian_gcc(tree, 12);
  EnvScope env({{"PATH", prefix + "/bin:/usr/bin"}, {"CONDA_PREFIX", prefix}});
  FactSet facts = run_on(tree);
  CHECK(list_of(facts, "toolkit.list"_fact) == List{prefix + " 12.4.131 (PATH, CONDA_PREFIX)"});
  CHECK(facts.get_string("toolkit.build.via"_fact) == "PATH");
  CHECK(facts.get_string("toolkit.build.path"_fact) == prefix);
  CHECK(facts.get_string("toolkit.build.version"_fact) == "12.4.131");
  CHECK(facts.find("toolkit.build.version"_fact)->source == prefix + "/conda-meta/cuda-nvcc-12.4.131-0.json");
  CHECK(facts.get_string("toolkit.build.host_compiler"_fact) == "gcc 12 (/usr/bin/x86_64-linux-gnu-gcc-12)");
}

TEST_CASE("toolkits: an unversioned gcc takes its major from lib/gcc", "[probes][toolkits]") {
  TempTree tree;
  toolkit(tree, "/opt/cuda");  // Arch Linux's place
  program(tree, "/usr/bin/gcc");
  tree.dir("/usr/lib/gcc/x86_64-pc-linux-gnu/14.2.1");
  tree.dir("/usr/lib/gcc/x86_64-w64-mingw32/13.1.0");  // a cross compiler's folder does not count
  EnvScope env({{"PATH", "/usr/bin"}});
  FactSet facts = run_on(tree);
  CHECK(list_of(facts, "toolkit.list"_fact) == List{"/opt/cuda unknown: " + std::string(k_no_version) + " (/opt/cuda)"});
  CHECK(state_of(facts, "toolkit.build.path"_fact) == FactState::absent);  // torch does not look in /opt/cuda

  EnvScope home({{"PATH", "/usr/bin"}, {"CUDA_HOME", "/opt/cuda"}});
  facts = run_on(tree);
  CHECK(facts.get_string("toolkit.build.host_compiler"_fact) == "gcc 14 (/usr/bin/gcc)");
  CHECK(facts.get_int("toolkit.build.host_compiler_major"_fact) == 14);

  tree.dir("/usr/lib/gcc/x86_64-pc-linux-gnu/13.3.0");
  facts = run_on(tree);
  CHECK(state_of(facts, "toolkit.build.host_compiler_major"_fact) == FactState::unknown);
  CHECK_THAT(reason_of(facts, "toolkit.build.host_compiler_major"_fact), Catch::Contains("13, 14"));
  CHECK(state_of(facts, "toolkit.build.host_compiler_unsupported"_fact) == FactState::unknown);
}

TEST_CASE("toolkits: what cannot be read is unknown, not absent", "[probes][toolkits]") {
  {
    // An unreadable /usr/local: no toolkit list, and no verdict on what the build would use.
    gd::Capture capture;
    capture.identity = gd::Identity{1000, 1000, {}};
    capture.env["PATH"] = "/usr/bin";
    capture.paths["/usr/local"].list = std::unexpected(gd::IoError{EACCES});
    capture.paths["/usr/local/cuda"].stat = std::unexpected(gd::IoError{EACCES});
    capture.paths["/usr/local/cuda/bin/nvcc"].stat = std::unexpected(gd::IoError{EACCES});
    gd::ReplayHost host(capture);
    FactSet facts;
    facts.set("host.arch"_fact, std::string("x86_64"), "uname");
    gd::probe_cuda_toolkits(host, gd::ProbeOptions{}, facts);
    CHECK(state_of(facts, "toolkit.list"_fact) == FactState::unknown);
    CHECK_THAT(reason_of(facts, "toolkit.list"_fact), Catch::Contains("/usr/local: needs root"));
    CHECK(state_of(facts, "toolkit.count"_fact) == FactState::unknown);
    CHECK(state_of(facts, "toolkit.build.path"_fact) == FactState::unknown);
    CHECK_THAT(reason_of(facts, "toolkit.build.path"_fact), Catch::Contains("needs root"));
    CHECK(state_of(facts, "toolkit.build.version"_fact) == FactState::unknown);
  }
  {
    // A toolkit whose version.json cannot be read: its version is unknown with the reason.
    gd::Capture capture;
    capture.identity = gd::Identity{1000, 1000, {}};
    capture.env["PATH"] = "/usr/local/cuda/bin:/usr/bin";
    gd::CapturedPath nvcc;
    nvcc.stat = gd::FileStat{gd::FileKind::regular, 0755};
    capture.paths["/usr/local/cuda-13.0/bin/nvcc"] = nvcc;
    capture.paths["/usr/local/cuda/bin/nvcc"] = nvcc;  // a capture records the answer at the path asked
    capture.paths["/usr/local/cuda"].link = std::string("/usr/local/cuda-13.0");
    capture.paths["/usr/local/cuda-13.0/version.json"].read = std::unexpected(gd::IoError{EACCES});
    gd::ReplayHost host(capture);
    FactSet facts;
    facts.set("host.arch"_fact, std::string("x86_64"), "uname");
    gd::probe_cuda_toolkits(host, gd::ProbeOptions{}, facts);
    List list = list_of(facts, "toolkit.list"_fact);
    REQUIRE(list.size() == 1);
    CHECK_THAT(list[0],
               Catch::StartsWith("/usr/local/cuda-13.0 unknown: /usr/local/cuda-13.0/version.json: needs root"));
    CHECK(facts.get_string("toolkit.build.root"_fact) == "/usr/local/cuda-13.0");
    CHECK(state_of(facts, "toolkit.build.version"_fact) == FactState::unknown);
    CHECK_THAT(reason_of(facts, "toolkit.build.version"_fact), Catch::Contains("needs root"));
  }
}

}  // namespace GD_UNITY_ID
