// A pre-flight's Python (issue 23 item 5): an image unpacked with `docker export | tar -x` has no
// configuration, so its PATH is the runtime's default and a virtualenv under /opt is on no known
// PATH. The image is searched where images put Python (venvs and conda under /opt, /usr/local,
// /root, /home, /workspace; site-packages holding ML packages), the environment found is checked
// as PATH's would be, and the verdict never says "No problem found" over what was not checked.
// Image trees are made in a temp folder and run through the whole pipeline with the repository's rules.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cli/pipeline.hpp"
#include "fact_access.hpp"
#include "fatbin_bytes.hpp"
#include "core/fact_key.hpp"
#include "probes/python/python_envs.hpp"
#include "replayed_reports.hpp"
#include "report/verdict.hpp"
#include "source_files.hpp"
#include "sys/image_env_host.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"
#include "tiny_elf.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::test::list_of;
using gd::test::TempTree;

namespace {

// The runtime's default PATH, which a pre-flight without an image configuration uses (cli/preflight).
const std::map<std::string, std::string> k_default_path = {
    {"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}};

void executable(const TempTree& tree, const std::string& path) {
  tree.file(path, "");
  std::filesystem::permissions(tree.at(path), std::filesystem::perms::owner_all);
}

/// libtorch_cuda.so with three fat binaries of SASS for `arches` and no PTX (a cu124 build).
std::string libtorch(const std::vector<std::uint32_t>& arches) {
  std::vector<gd::test::Entry> entries;
  for (std::uint32_t arch : arches) entries.push_back(gd::test::Entry{gd::k_fatbin_kind_elf, arch});
  std::string containers;
  for (int i = 0; i < 3; ++i) containers += gd::test::container_bytes(entries);
  return gd::test::elf_with_sections({{".text", "\x90\x90\x90\x90"}, {".nv_fatbin", containers}});
}

/// torch 2.6.0+cu124 (SASS sm_50 ... sm_90, no PTX: no kernel for sm_120) in `site`.
void torch_cu124(const TempTree& tree, const std::string& site) {
  tree.file(site + "/torch/__init__.py", "");
  tree.file(site + "/torch/version.py", gd::test::python_fixture("torch-2.6.0+cu124.version.py"));
  tree.file(site + "/torch/lib/libtorch_cuda.so", libtorch({50, 60, 70, 75, 80, 86, 90}));
  tree.file(site + "/torch-2.6.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0\n\n");
}

/// An exported image: /etc, the base's /usr/bin/python3.12 (not linked as python3, as in the
/// bundles of make_image_tree.py), and a venv /opt/venv made from it.
void exported_image(const TempTree& tree, bool with_torch = true) {
  tree.file("/etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  executable(tree, "/usr/bin/python3.12");
  tree.link("/opt/venv/bin/python", "/usr/bin/python3.12");
  tree.link("/opt/venv/bin/python3", "python");
  tree.file("/opt/venv/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.12.3\ninclude-system-site-packages = false\n");
  if (with_torch) torch_cu124(tree, "/opt/venv/lib/python3.12/site-packages");
}

gd::Report preflight(const TempTree& tree, const std::string& gpu, const std::map<std::string, std::string>& env,
                     const std::string& image_config = "", const std::string& python = "") {
  gd::RealHost real(tree.root(), {});
  gd::ImageEnvHost host(real, env);
  gd::Options options;
  options.root = tree.root();
  options.capture = false;
  options.probe.run_cuda_helper = false;
  options.probe.python_path = python;
  auto target_gpu = gd::parse_target_gpu(gpu);
  REQUIRE(target_gpu);
  options.probe.target = gd::TargetHost{*target_gpu, "580.95.05", image_config};
  gd::RunInfo run;
  run.mode = gd::RunMode::preflight;
  return gd::run_pipeline(host, options, gd::test::repository_rule_set(), run);
}

std::vector<std::string> error_ids(const gd::Report& report) {
  std::vector<std::string> out;
  for (const gd::Finding& f : report.findings) {
    if (f.severity == gd::Severity::error) out.push_back(f.id);
  }
  return out;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("pre-flight without configuration: the venv under /opt is found, checked, and its torch judged", "[target]") {
  TempTree tree;
  exported_image(tree);
  gd::Report report = preflight(tree, "10de:2bb5", k_default_path);
  CHECK(report.facts.get_string("py.default.prefix"_fact) == "/opt/venv");
  CHECK(report.facts.get_string("py.default.via"_fact) == "found by searching /opt");
  CHECK(report.facts.get_string("torch.version"_fact) == "2.6.0+cu124");
  CHECK(error_ids(report) == std::vector<std::string>{"ml.torch-no-kernel-for-gpu"});
  // Checked, but not known to be what the image runs: said, with the two options that settle it.
  auto gaps = list_of(report.facts, "py.not_checked"_fact);
  REQUIRE(gaps.size() == 1);
  CHECK(contains(gaps[0], "/opt/venv (venv, found by searching /opt) holds torch 2.6.0+cu124 and was checked"));
  CHECK(contains(gaps[0], "--python /opt/venv/bin/python3"));
  CHECK(contains(gaps[0], "--image-config FILE"));
  CHECK(report.facts.find("target.image_config"_fact)->state == gd::FactState::absent);
}

TEST_CASE("pre-flight: a venv torch with kernels for the target is no problem, but the verdict says it was found by search", "[target]") {
  TempTree tree;
  exported_image(tree);
  gd::Report report = preflight(tree, "H200", k_default_path);
  CHECK(error_ids(report).empty());
  gd::Verdict verdict = gd::verdict_of(report);
  CHECK(verdict.kind == gd::Verdict::Kind::incomplete);
  // Warnings (torch's pinned wheels are not installed) put the problems line first; without them:
  report.findings.clear();
  verdict = gd::verdict_of(report);
  CHECK_FALSE(contains(verdict.text, "No problem found"));
  INFO(verdict.text);
  CHECK(verdict.text.starts_with("No problem confirmed in the image for the target (H200 (10de:2335, GH100, Hopper, cc 9.0), driver 580.95.05): not all"));
  CHECK(contains(verdict.text, "not all of its Python was checked: /opt/venv (venv, found by searching /opt)"));
  // --python names it: the image's Python is then known, and nothing is left unchecked.
  gd::Report named = preflight(tree, "H200", k_default_path, "", "/opt/venv/bin/python3");
  CHECK(named.facts.get_string("py.default.via"_fact) == "--python");
  CHECK(list_of(named.facts, "py.not_checked"_fact).empty());
  named.findings.clear();
  CHECK(gd::verdict_of(named).text.starts_with("No problem found in the image for the target"));
}

TEST_CASE("pre-flight with a configuration whose PATH reaches a python without ML packages", "[target]") {
  TempTree tree;
  exported_image(tree);
  tree.link("/usr/bin/python3", "python3.12");
  // PATH's python3 is the system's, which imports no ML package: the venv's torch is checked, and
  // only --python settles it (the configuration is already given).
  gd::Report report = preflight(tree, "10de:2bb5", k_default_path, "/bundle/config.json");
  CHECK(report.facts.get_string("py.default.prefix"_fact) == "/opt/venv");
  CHECK(error_ids(report) == std::vector<std::string>{"ml.torch-no-kernel-for-gpu"});
  auto gaps = list_of(report.facts, "py.not_checked"_fact);
  REQUIRE(gaps.size() == 1);
  CHECK(contains(gaps[0], "is not on the image's PATH: give --python /opt/venv/bin/python3 if the image runs it"));
  CHECK_FALSE(contains(gaps[0], "--image-config"));
  // The PATH's interpreter is still listed, and py.envs says how each environment was found.
  auto envs = list_of(report.facts, "py.envs"_fact);
  REQUIRE(envs.size() == 2);
  CHECK(envs[0] == "/opt/venv (venv, python 3.12, found by searching /opt): torch 2.6.0+cu124");
  CHECK(envs[1] == "/usr (system, python 3.12, via PATH)");
}

TEST_CASE("pre-flight: the PATH's venv holds torch, a second venv with torch is not checked", "[target]") {
  TempTree tree;
  exported_image(tree);
  executable(tree, "/usr/local/bin/python3.11");
  tree.link("/home/app/.venv/bin/python", "/usr/local/bin/python3.11");
  tree.file("/home/app/.venv/pyvenv.cfg", "home = /usr/local/bin\nversion = 3.11.9\n");
  torch_cu124(tree, "/home/app/.venv/lib/python3.11/site-packages");
  std::map<std::string, std::string> env = {{"PATH", "/opt/venv/bin:/usr/bin:/bin"}};
  gd::Report report = preflight(tree, "H200", env, "/bundle/config.json");
  CHECK(report.facts.get_string("py.default.prefix"_fact) == "/opt/venv");
  CHECK(report.facts.get_string("py.default.via"_fact) == "PATH");
  auto gaps = list_of(report.facts, "py.not_checked"_fact);
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0] == "/home/app/.venv (venv) holds torch 2.6.0+cu124 (found by searching /home), not checked: give "
                   "--python /home/app/.venv/bin/python to check it");
}

TEST_CASE("pre-flight: a conda installation under /opt/conda and its named environment", "[target]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  executable(tree, "/opt/conda/bin/python3.11");
  tree.link("/opt/conda/bin/python3", "python3.11");
  tree.dir("/opt/conda/conda-meta");
  tree.dir("/opt/conda/pkgs/pytorch-2.6.0-py3.11_cuda12.4_0/lib/python3.11/site-packages/torch");  // conda's cache
  executable(tree, "/opt/conda/envs/train/bin/python3.12");
  tree.link("/opt/conda/envs/train/bin/python3", "python3.12");
  tree.dir("/opt/conda/envs/train/conda-meta");
  torch_cu124(tree, "/opt/conda/envs/train/lib/python3.12/site-packages");
  gd::Report report = preflight(tree, "10de:2bb5", k_default_path);
  CHECK(report.facts.get_string("py.default.prefix"_fact) == "/opt/conda/envs/train");
  CHECK(report.facts.get_string("py.default.kind"_fact) == "conda");
  CHECK(report.facts.get_string("py.default.via"_fact) == "found by searching /opt");
  CHECK(error_ids(report) == std::vector<std::string>{"ml.torch-no-kernel-for-gpu"});
  // The base environment (no ML package) is found too; the package cache is never taken for one.
  auto envs = list_of(report.facts, "py.envs"_fact);
  CHECK(envs == std::vector<std::string>{
                    "/opt/conda/envs/train (conda, python 3.12, found by searching /opt): torch 2.6.0+cu124",
                    "/opt/conda (conda, python 3.11, found by searching /opt)"});
}

TEST_CASE("pre-flight: nothing found: an image without Python says no Python, and 'No problem found' stays", "[target]") {
  TempTree tree;
  tree.file("/etc/os-release", "ID=debian\n");
  tree.file("/opt/app/bin/server", "");
  tree.file("/usr/local/lib/libfoo.so", "");
  gd::Report report = preflight(tree, "H200", k_default_path);
  CHECK(report.facts.find("py.default.prefix"_fact)->state == gd::FactState::absent);
  CHECK(list_of(report.facts, "py.not_checked"_fact).empty());
  CHECK(report.facts.get_bool("torch.installed"_fact) == false);
  CHECK(gd::verdict_of(report).text.starts_with("No problem found in the image for the target"));
}

TEST_CASE("pre-flight: site-packages with torch and no Python: checked as if one imported it, never 'No problem found'", "[target]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  // A venv whose interpreter was removed (a multi-stage build that copied only site-packages).
  tree.file("/opt/venv/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.12.3\n");
  torch_cu124(tree, "/opt/venv/lib/python3.12/site-packages");
  gd::Report report = preflight(tree, "10de:2bb5", k_default_path);
  CHECK(report.facts.get_string("py.default.prefix"_fact) == "/opt/venv");
  CHECK(report.facts.get_string("py.default.kind"_fact) == "site-packages");
  CHECK(report.facts.find("py.default.interpreter"_fact)->state == gd::FactState::absent);
  CHECK(error_ids(report) == std::vector<std::string>{"ml.torch-no-kernel-for-gpu"});
  auto gaps = list_of(report.facts, "py.not_checked"_fact);
  REQUIRE(gaps.size() == 1);
  CHECK(contains(gaps[0], "/opt/venv/lib/python3.12/site-packages holds torch 2.6.0+cu124 and was checked, but no "
                          "Python interpreter of the image was found that imports it"));
  // For the H200 nothing fires, and the verdict says what it did not see.
  gd::Report hopper = preflight(tree, "H200", k_default_path);
  hopper.findings.clear();
  gd::Verdict verdict = gd::verdict_of(hopper);
  CHECK_FALSE(contains(verdict.text, "No problem found"));
  CHECK(contains(verdict.text, "no Python interpreter of the image was found that imports it"));
}

TEST_CASE("pre-flight: site-packages without ML packages and no Python at all", "[target]") {
  TempTree tree;
  tree.file("/usr/local/lib/python3.11/site-packages/requests/__init__.py", "");
  gd::Report report = preflight(tree, "H200", k_default_path);
  CHECK(report.facts.find("py.default.prefix"_fact)->state == gd::FactState::absent);
  auto gaps = list_of(report.facts, "py.not_checked"_fact);
  REQUIRE(gaps.size() == 1);
  CHECK(gaps[0] == "no Python interpreter found on the runtime's default PATH (no image configuration given), but "
                   "/usr/local/lib/python3.11/site-packages exists: give --python PATH (an interpreter inside the "
                   "image), or --image-config FILE (docker inspect IMAGE) for the image's PATH");
  CHECK_FALSE(contains(gd::verdict_of(report).text, "No problem found"));
}

TEST_CASE("image search: bounded, never follows links, skips what is no environment", "[target]") {
  TempTree tree;
  exported_image(tree, false);
  tree.link("/opt/loop", "/opt");                        // a link loop: not followed
  tree.link("/opt/elsewhere", "/usr/lib");               // out of the searched folders: not followed
  tree.dir("/opt/project/node_modules/x/lib/python3.12/site-packages/torch");  // never entered
  gd::RealHost real(tree.root(), {});
  gd::ImageSearch search = gd::search_image_python(real, {});
  REQUIRE(search.envs.size() == 1);
  CHECK(search.envs[0].prefix == "/opt/venv");
  CHECK(search.bare_sites.empty());
  CHECK_FALSE(search.truncated);
  // A limit stops the search and says so.
  for (int i = 0; i < 40; ++i) tree.dir("/workspace/d" + std::to_string(i));
  gd::ImageSearchLimits limits;
  limits.max_dirs = 10;
  gd::ImageSearch small = gd::search_image_python(real, {}, limits);
  CHECK(small.truncated);
  CHECK(small.dirs_listed <= 10);
  // Files are not stat'ed one by one: a data folder of thousands costs one listing, no budget.
  for (int i = 0; i < 50; ++i) tree.file("/workspace/data/part-" + std::to_string(i) + ".npy", "");
  for (int i = 0; i < 50; ++i) tree.file("/opt/venv/../libs/libcudnn_" + std::to_string(i) + ".so.9", "");
  gd::ImageSearchLimits few_stats;
  few_stats.max_entries = 60;  // the 40 folders of /workspace and the venv's, not the 100 files
  CHECK_FALSE(gd::search_image_python(real, {}, few_stats).truncated);
  // Depth: /workspace/a/b/c/d/e/.venv is deeper than images put environments.
  tree.link("/workspace/a/b/c/d/e/.venv/bin/python3", "/usr/bin/python3.12");
  tree.file("/workspace/a/b/c/d/e/.venv/pyvenv.cfg", "home = /usr/bin\n");
  tree.link("/workspace/a/.venv/bin/python3", "/usr/bin/python3.12");
  tree.file("/workspace/a/.venv/pyvenv.cfg", "home = /usr/bin\n");
  gd::ImageSearch deep = gd::search_image_python(real, {});
  std::vector<std::string> prefixes;
  for (const gd::PythonEnv& env : deep.envs) prefixes.push_back(env.prefix);
  CHECK(prefixes == std::vector<std::string>{"/opt/venv", "/workspace/a/.venv"});
}

TEST_CASE("image search: a FIFO where pyvenv.cfg or a site folder's entry should be does not hang it", "[target]") {
  TempTree tree;
  exported_image(tree);
  tree.fifo("/opt/fifo-env/pyvenv.cfg");
  tree.link("/opt/fifo-env/bin/python3", "/usr/bin/python3.12");
  tree.fifo("/workspace/app/lib/python3.12/site-packages/torch");
  gd::RealHost real(tree.root(), {});
  gd::ImageSearch search = gd::search_image_python(real, {});
  std::vector<std::string> prefixes;
  for (const gd::PythonEnv& env : search.envs) prefixes.push_back(env.prefix);
  CHECK(std::find(prefixes.begin(), prefixes.end(), "/opt/venv") != prefixes.end());
  REQUIRE(search.bare_sites.size() == 1);
  CHECK(gd::ml_packages(real, search.bare_sites[0].site_dirs) == std::vector<std::string>{"torch"});
}

TEST_CASE("ml_packages: torch's version from version.py, the others from their .dist-info, cupy by its wheel", "[target]") {
  TempTree tree;
  const std::string site = "/usr/local/lib/python3.12/site-packages";
  torch_cu124(tree, site);
  tree.dir(site + "/jax");
  tree.dir(site + "/jax-0.4.30.dist-info");
  tree.dir(site + "/jax_cuda12_plugin-0.4.30.dist-info");
  tree.dir(site + "/cupy_cuda12x-13.3.0.dist-info");
  tree.dir(site + "/torchvision");
  tree.dir(site + "/requests");
  gd::RealHost real(tree.root(), {});
  CHECK(gd::ml_packages(real, {site}) == std::vector<std::string>{"torch 2.6.0+cu124", "jax 0.4.30", "cupy 13.3.0"});
}

}  // namespace GD_UNITY_ID
