// The Python environment probe on trees laid out like real hosts: the H200's uv venv (its real
// METADATA and version.py files from tests/fixtures/python), a conda environment shadowed by the
// user site, pyenv's shims, an isolated venv, a CPU wheel, and no Python at all.

#include <catch2/catch.hpp>


#include "fact_access.hpp"
#include "core/fact_key.hpp"
#include "probes/python/python_envs.hpp"
#include "probes/python/python_stack.hpp"
#include "scripted_env_host.hpp"
#include "source_files.hpp"
#include "sys/real_host.hpp"
#include "temp_tree.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)
using namespace gd::fact_literals;

using gd::FactSet;
using gd::FactState;
using gd::test::list_of;
using gd::test::ScriptedEnvHost;
using gd::test::state_of;
using gd::test::TempTree;
using Names = std::vector<std::string>;

namespace {

std::string fixture(const std::string& name) { return gd::test::python_fixture(name); }

std::string metadata(const std::string& name, const std::string& version, const std::vector<std::string>& requires_dist = {}) {
  std::string text = "Metadata-Version: 2.4\nName: " + name + "\nVersion: " + version + "\n";
  for (const std::string& line : requires_dist) text += "Requires-Dist: " + line + "\n";
  return text + "\nDescription.\n";
}

constexpr const char* k_site = "/opt/torch/.venv/lib/python3.12/site-packages";

/// The H200 device's environment: /usr/bin/python3.12, a uv venv at /opt/torch/.venv whose
/// python3 -> python -> /usr/bin/python3.12, torch 2.11.0+cu130 with triton 3.6.0 and the CUDA 13
/// wheels that cuda-toolkit[...]==13.0.2 pins.
void h200_venv(const TempTree& tree) {
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  tree.file("/usr/bin/python3.12", "");
  std::filesystem::permissions(tree.at("/usr/bin/python3.12"), std::filesystem::perms::owner_all);
  tree.link("/opt/torch/.venv/bin/python", "/usr/bin/python3.12");
  tree.link("/opt/torch/.venv/bin/python3", "python");
  tree.file("/opt/torch/.venv/pyvenv.cfg",
            "home = /usr/bin\nimplementation = CPython\nuv = 0.11.15\nversion_info = 3.12.3\n"
            "include-system-site-packages = false\n");
  const std::string site = k_site;
  tree.file(site + "/torch/__init__.py", "");
  tree.file(site + "/torch/version.py", fixture("torch-2.11.0+cu130.version.py"));
  tree.file(site + "/torch-2.11.0.dist-info/METADATA", fixture("torch-2.11.0.METADATA"));
  tree.file(site + "/triton-3.6.0.dist-info/METADATA", metadata("triton", "3.6.0"));
  tree.file(site + "/cuda_toolkit-13.0.2.dist-info/METADATA", fixture("cuda_toolkit-13.0.2.METADATA"));
  tree.file(site + "/cuda_bindings-13.3.1.dist-info/METADATA", metadata("cuda-bindings", "13.3.1"));
  tree.file(site + "/nvidia_cudnn_cu13-9.19.0.56.dist-info/METADATA", fixture("nvidia_cudnn_cu13-9.19.0.56.METADATA"));
  tree.file(site + "/nvidia_cuda_runtime-13.0.96.dist-info/METADATA", fixture("nvidia_cuda_runtime-13.0.96.METADATA"));
  for (auto [name, version] : {std::pair{"nvidia_cusparselt_cu13", "0.8.0"}, std::pair{"nvidia_nccl_cu13", "2.28.9"},
                               std::pair{"nvidia_nvshmem_cu13", "3.4.5"}, std::pair{"nvidia_cublas", "13.1.0.3"},
                               std::pair{"nvidia_cufft", "12.0.0.61"}, std::pair{"nvidia_cufile", "1.15.1.6"},
                               std::pair{"nvidia_curand", "10.4.0.35"}, std::pair{"nvidia_cusolver", "12.0.4.66"},
                               std::pair{"nvidia_cusparse", "12.6.3.3"}, std::pair{"nvidia_nvjitlink", "13.0.88"},
                               std::pair{"nvidia_cuda_nvrtc", "13.0.88"}, std::pair{"nvidia_cuda_cupti", "13.0.85"},
                               std::pair{"nvidia_nvtx", "13.0.85"}, std::pair{"nvidia_ml_py", "13.610.43"}}) {
    std::string dist = std::string(name);
    std::replace(dist.begin(), dist.end(), '_', '-');
    tree.file(site + "/" + name + "-" + version + ".dist-info/METADATA", metadata(dist, version));
  }
  tree.file(site + "/torchvision-0.26.0.dist-info/METADATA", fixture("torchvision-0.26.0.METADATA"));
}

FactSet run_probe(gd::Host& host, const std::string& python_option = "") {
  FactSet facts;
  gd::ProbeOptions options;
  options.python_path = python_option;
  gd::probe_python_stack(host, options, facts);
  return facts;
}

const std::map<std::string, std::string> k_h200_env = {
    {"PATH", "/opt/torch/.venv/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}};

}  // namespace

TEST_CASE("nvidia wheel families: -cuNN suffixes, and CUDA 13's unsuffixed library wheels", "[python]") {
  CHECK(gd::nvidia_wheel_family("nvidia-cublas-cu12") == "cu12");
  CHECK(gd::nvidia_wheel_family("nvidia-cudnn-cu13") == "cu13");
  CHECK(gd::nvidia_wheel_family("nvidia-cuda-runtime-cu11") == "cu11");
  CHECK(gd::nvidia_wheel_family("nvidia-cublas") == "cu13");
  CHECK(gd::nvidia_wheel_family("nvidia-cufft") == "cu13");  // 12.0.0.61 is cuFFT's version, CUDA 13's wheel
  CHECK(gd::nvidia_wheel_family("nvidia-ml-py") == "");      // NVML bindings, not a CUDA library
  CHECK(gd::nvidia_wheel_family("torch") == "");
}

TEST_CASE("interpreter names give the Python version", "[python]") {
  CHECK(gd::version_from_interpreter_name("python3.12") == "3.12");
  CHECK(gd::version_from_interpreter_name("python3.13t") == "3.13");
  CHECK_FALSE(gd::version_from_interpreter_name("python3"));
  CHECK_FALSE(gd::version_from_interpreter_name("python3.12-config"));
}

TEST_CASE("the H200's uv venv: torch 2.11.0+cu130 with its pins met", "[python]") {
  TempTree tree;
  h200_venv(tree);
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, k_h200_env, "/work");
  FactSet facts = run_probe(host);

  CHECK(facts.get_string("py.default.prefix"_fact) == "/opt/torch/.venv");
  CHECK(facts.get_string("py.default.kind"_fact) == "venv");
  CHECK(facts.get_string("py.default.via"_fact) == "PATH");
  CHECK(facts.get_string("py.default.version"_fact) == "3.12");
  CHECK(list_of(facts, "py.default.site_dirs"_fact) == Names{k_site});
  CHECK(facts.get_bool("torch.installed"_fact) == true);
  CHECK(facts.get_string("torch.version"_fact) == "2.11.0+cu130");
  CHECK(facts.get_string("torch.release"_fact) == "2.11.0");
  CHECK(facts.get_string("torch.cuda"_fact) == "13.0");
  CHECK(facts.get_bool("torch.cpu_only"_fact) == false);
  CHECK(facts.get_string("torch.git_version"_fact) == "70d99e998b4955e0049d13a98d77ae1b14db1f45");
  CHECK(facts.get_int("torch.copy_count"_fact) == 1);
  // Its METADATA pins cuda-toolkit[...]==13.0.2, whose extras pin the CUDA 13 wheels: all met.
  CHECK(list_of(facts, "torch.requires_unmet"_fact).empty());
  CHECK(facts.get_string("torch.triton_pin"_fact) == "triton==3.6.0");
  CHECK(state_of(facts, "torch.triton_unmet"_fact) == FactState::absent);
  CHECK(list_of(facts, "wheels.cuda_families"_fact) == Names{"cu13"});
  CHECK(facts.get_int("wheels.cuda_family_count"_fact) == 1);
  CHECK(state_of(facts, "wheels.other_family"_fact) == FactState::absent);
  CHECK(list_of(facts, "wheels.extensions_for_other_torch"_fact).empty());  // torchvision pins torch==2.11.0
  // No libtorch_cuda.so in this tree: the GPU code is not known to be missing, it is not there.
  CHECK(state_of(facts, "torch.cuda_library"_fact) == FactState::absent);
  CHECK(state_of(facts, "wheels.jax_cuda_major"_fact) == FactState::absent);
}

TEST_CASE("torch's pins: a downgraded CUDA wheel, a wrong triton, a missing one", "[python]") {
  TempTree tree;
  h200_venv(tree);
  const std::string site = k_site;
  std::filesystem::remove_all(tree.at(site + "/nvidia_cublas-13.1.0.3.dist-info"));
  tree.file(site + "/nvidia_cublas-13.0.0.19.dist-info/METADATA", metadata("nvidia-cublas", "13.0.0.19"));
  std::filesystem::remove_all(tree.at(site + "/nvidia_nccl_cu13-2.28.9.dist-info"));
  std::filesystem::remove_all(tree.at(site + "/triton-3.6.0.dist-info"));
  tree.file(site + "/triton-3.2.0.dist-info/METADATA", metadata("triton", "3.2.0"));
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, k_h200_env);
  FactSet facts = run_probe(host);

  Names unmet = list_of(facts, "torch.requires_unmet"_fact);
  CHECK(std::find(unmet.begin(), unmet.end(), "nvidia-cublas==13.1.0.3.* (installed 13.0.0.19)") != unmet.end());
  CHECK(std::find(unmet.begin(), unmet.end(), "nvidia-nccl-cu13==2.28.9 (not installed)") != unmet.end());
  CHECK(unmet.size() == 2);
  CHECK(facts.get_string("torch.triton_unmet"_fact) == "triton 3.2.0 installed, torch 2.11.0+cu130 requires triton==3.6.0");
}

TEST_CASE("cu12 and cu13 wheels mixed; an extension pinned to another torch", "[python]") {
  TempTree tree;
  h200_venv(tree);
  const std::string site = k_site;
  tree.file(site + "/nvidia_cublas_cu12-12.8.4.1.dist-info/METADATA", metadata("nvidia-cublas-cu12", "12.8.4.1"));
  tree.file(site + "/vllm-0.10.0.dist-info/METADATA", metadata("vllm", "0.10.0", {"torch==2.7.1", "xformers==0.0.31"}));
  tree.file(site + "/flash_attn-2.7.4.post1.dist-info/METADATA", metadata("flash_attn", "2.7.4.post1", {"torch", "einops"}));
  tree.file(site + "/flash_attn-2.7.4.post1.dist-info/direct_url.json",
            R"({"url": "https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/)"
            R"(flash_attn-2.7.4.post1%2Bcu12torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl", "archive_info": {}})");
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, k_h200_env);
  FactSet facts = run_probe(host);

  CHECK(list_of(facts, "wheels.cuda_families"_fact) == Names{"cu12", "cu13"});
  CHECK(facts.get_int("wheels.cuda_family_count"_fact) == 2);
  // torch 2.11.0+cu130 uses the cu13 family: the cu12 wheel is the one to remove.
  CHECK(facts.get_string("wheels.other_family"_fact) == "nvidia-cublas-cu12");
  CHECK(list_of(facts, "wheels.extensions_for_other_torch"_fact) ==
        Names{"vllm 0.10.0 requires torch==2.7.1", "flash-attn 2.7.4.post1 was built for torch 2.6 (its wheel's name says so)"});
}

TEST_CASE("conda with a user-site torch: the user site comes first and hides the environment's", "[python]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  tree.file("/opt/conda/bin/python3.12", "");
  std::filesystem::permissions(tree.at("/opt/conda/bin/python3.12"), std::filesystem::perms::owner_all);
  tree.link("/opt/conda/bin/python3", "python3.12");
  tree.dir("/opt/conda/conda-meta");
  const std::string conda_site = "/opt/conda/lib/python3.12/site-packages";
  const std::string user_site = "/root/.local/lib/python3.12/site-packages";
  for (const auto& [site, version] : {std::pair{conda_site, std::string("2.11.0+cu128")}, std::pair{user_site, std::string("2.6.0+cu124")}}) {
    tree.file(site + "/torch/__init__.py", "");
    tree.file(site + "/torch/version.py", "__version__ = '" + version + "'\ncuda: Optional[str] = '12.4'\n");
    tree.file(site + "/torch-" + version.substr(0, version.find('+')) + ".dist-info/METADATA",
              metadata("torch", version.substr(0, version.find('+'))));
  }
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, {{"PATH", "/opt/conda/bin:/usr/bin"}, {"CONDA_PREFIX", "/opt/conda"}});
  FactSet facts = run_probe(host);

  CHECK(facts.get_string("py.default.kind"_fact) == "conda");
  CHECK(list_of(facts, "py.default.site_dirs"_fact) == Names{user_site, conda_site});
  CHECK(facts.get_int("torch.copy_count"_fact) == 2);
  CHECK(facts.get_string("torch.path"_fact) == user_site + "/torch");
  CHECK(facts.get_string("torch.version"_fact) == "2.6.0+cu124");
  CHECK(list_of(facts, "py.shadowed"_fact) ==
        Names{"torch 2.11.0 in " + conda_site + " is hidden by 2.6.0 in " + user_site});

  SECTION("PYTHONNOUSERSITE turns the user site off") {
    ScriptedEnvHost isolated(real, {{"PATH", "/opt/conda/bin:/usr/bin"}, {"PYTHONNOUSERSITE", "1"}});
    FactSet without = run_probe(isolated);
    CHECK(list_of(without, "py.default.site_dirs"_fact) == Names{conda_site});
    CHECK(without.get_int("torch.copy_count"_fact) == 1);
  }
  SECTION("a torch/ folder left with only __pycache__ (an interrupted uninstall) is no installation") {
    // Without __init__.py it is at most a namespace portion, which a regular package anywhere on
    // sys.path wins over (PEP 420): only the conda copy is imported.
    std::filesystem::remove_all(tree.at(user_site + "/torch"));
    std::filesystem::remove_all(tree.at(user_site + "/torch-2.6.0.dist-info"));
    tree.file(user_site + "/torch/__pycache__/version.cpython-312.pyc", "");
    FactSet left = run_probe(host);
    CHECK(left.get_int("torch.copy_count"_fact) == 1);
    CHECK(left.get_string("torch.path"_fact) == conda_site + "/torch");
  }
}

TEST_CASE("a venv without system site packages never sees the user site", "[python]") {
  TempTree tree;
  h200_venv(tree);
  tree.file("/root/.local/lib/python3.12/site-packages/torch/__init__.py", "");
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, k_h200_env);
  FactSet facts = run_probe(host);
  CHECK(facts.get_int("torch.copy_count"_fact) == 1);
}

TEST_CASE("pyenv's shim leads to the selected version's interpreter", "[python]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  tree.file("/root/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec python3\n");
  std::filesystem::permissions(tree.at("/root/.pyenv/shims/python3"), std::filesystem::perms::owner_all);
  tree.file("/root/.pyenv/versions/3.11.7/bin/python3.11", "");
  tree.link("/root/.pyenv/versions/3.11.7/bin/python3", "python3.11");
  tree.dir("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages");
  tree.file("/root/.pyenv/version", "3.11.7\n");
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, {{"PATH", "/root/.pyenv/shims:/usr/bin"}}, "/work");
  FactSet facts = run_probe(host);
  CHECK(facts.get_string("py.default.prefix"_fact) == "/root/.pyenv/versions/3.11.7");
  CHECK(facts.get_string("py.default.version"_fact) == "3.11");

  SECTION("a .python-version in the working folder wins over the global version") {
    tree.file("/root/.pyenv/versions/3.12.1/bin/python3.12", "");
    tree.link("/root/.pyenv/versions/3.12.1/bin/python3", "python3.12");
    tree.file("/work/.python-version", "3.12.1\n");
    FactSet local = run_probe(host);
    CHECK(local.get_string("py.default.prefix"_fact) == "/root/.pyenv/versions/3.12.1");
  }
}

TEST_CASE("a CPU wheel, a .venv in the working folder, --python", "[python]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  tree.file("/usr/bin/python3.12", "");
  tree.link("/work/.venv/bin/python3", "/usr/bin/python3.12");
  tree.file("/work/.venv/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.12.3\n");
  const std::string site = "/work/.venv/lib/python3.12/site-packages";
  tree.file(site + "/torch/__init__.py", "");
  tree.file(site + "/torch/version.py", fixture("torch-2.6.0+cpu.version.py"));
  gd::RealHost real(tree.root(), {});

  // No python on PATH: uv's .venv in the working folder is the environment.
  ScriptedEnvHost host(real, {{"PATH", "/nowhere"}}, "/work");
  FactSet facts = run_probe(host);
  CHECK(facts.get_string("py.default.via"_fact) == "./.venv");
  CHECK(facts.get_string("torch.version"_fact) == "2.6.0+cpu");
  CHECK(facts.get_bool("torch.cpu_only"_fact) == true);
  CHECK(state_of(facts, "torch.cuda"_fact) == FactState::absent);
  CHECK(state_of(facts, "torch.sass"_fact) == FactState::absent);

  FactSet chosen = run_probe(host, "/work/.venv");
  CHECK(chosen.get_string("py.default.via"_fact) == "--python");
}

TEST_CASE("no Python anywhere: every Python fact is absent, torch is not installed", "[python]") {
  TempTree tree;
  tree.file("/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n");
  gd::RealHost real(tree.root(), {});
  ScriptedEnvHost host(real, {{"PATH", "/usr/bin"}});
  FactSet facts = run_probe(host);
  CHECK(state_of(facts, "py.default.prefix"_fact) == FactState::absent);
  CHECK(facts.get_bool("torch.installed"_fact) == false);
  CHECK(state_of(facts, "torch.cuda"_fact) == FactState::absent);
}

TEST_CASE("LD_LIBRARY_PATH with a system CUDA's nvJitLink ahead of the wheel's", "[python]") {
  TempTree tree;
  h200_venv(tree);
  const std::string site = k_site;
  tree.file(site + "/nvidia_nvjitlink_cu12-12.8.93.dist-info/METADATA", metadata("nvidia-nvjitlink-cu12", "12.8.93"));
  std::filesystem::remove_all(tree.at(site + "/nvidia_nvjitlink-13.0.88.dist-info"));
  tree.file("/usr/local/cuda-12.1/lib64/libnvJitLink.so.12.1.105", "");
  tree.link("/usr/local/cuda-12.1/lib64/libnvJitLink.so.12", "libnvJitLink.so.12.1.105");
  tree.file("/usr/local/nvidia/lib64/libcuda.so.1", "");
  gd::RealHost real(tree.root(), {});
  std::map<std::string, std::string> env = k_h200_env;
  env["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64:/usr/local/cuda-12.1/lib64";
  ScriptedEnvHost host(real, env);
  FactSet facts = run_probe(host);
  CHECK(list_of(facts, "ml.ld_library_path_shadows_wheels"_fact) ==
        Names{"libnvJitLink.so.12 in /usr/local/cuda-12.1/lib64 (12.1.105) ahead of nvidia-nvjitlink-cu12 12.8.93"});

  SECTION("the same version is no shadow") {
    std::filesystem::remove_all(tree.at(site + "/nvidia_nvjitlink_cu12-12.8.93.dist-info"));
    tree.file(site + "/nvidia_nvjitlink_cu12-12.1.105.dist-info/METADATA", metadata("nvidia-nvjitlink-cu12", "12.1.105"));
    CHECK(list_of(run_probe(host), "ml.ld_library_path_shadows_wheels"_fact).empty());
  }
  SECTION("a newer library of the same major is no shadow: it keeps the older one's symbols") {
    std::filesystem::remove_all(tree.at(site + "/nvidia_nvjitlink_cu12-12.8.93.dist-info"));
    tree.file(site + "/nvidia_nvjitlink_cu12-12.0.140.dist-info/METADATA", metadata("nvidia-nvjitlink-cu12", "12.0.140"));
    CHECK(list_of(run_probe(host), "ml.ld_library_path_shadows_wheels"_fact).empty());
  }
}

}  // namespace GD_UNITY_ID
