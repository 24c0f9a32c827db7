#include "probes/python/python_metadata.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "util/packaging/requirement.hpp"
#include "source_files.hpp"

namespace GD_UNITY_ID {  // this file's own (unity build: tests/CMakeLists.txt)

using gd::CoreMetadata;
using gd::normalize_name;
using gd::parse_core_metadata;
using gd::parse_direct_url;
using gd::parse_torch_build_tag;
using gd::parse_torch_version_py;
using gd::parse_wheel_filename;

namespace {

std::string fixture(const std::string& name) { return gd::test::python_fixture(name); }

CoreMetadata metadata_fixture(const std::string& name) {
  std::string text = fixture(name);
  REQUIRE_FALSE(text.empty());
  auto meta = parse_core_metadata(text);
  REQUIRE(meta);
  return *meta;
}

/// Linux, x86_64, CPython 3.12: the H200 host whose site-packages the fixtures come from.
gd::MarkerEnv h200_env() {
  gd::MarkerEnv env;
  env.os_name = "posix";
  env.sys_platform = "linux";
  env.platform_system = "Linux";
  env.platform_machine = "x86_64";
  env.python_version = "3.12";
  env.python_full_version = "3.12.3";
  env.implementation_name = "cpython";
  env.platform_python_implementation = "CPython";
  return env;
}

/// The names of the requirements that apply in `env`.
std::vector<std::string> applying(const CoreMetadata& meta, const gd::MarkerEnv& env) {
  std::vector<std::string> names;
  for (const auto& line : meta.requires_dist) {
    auto req = gd::parse_requirement(line);
    REQUIRE(req);
    if (!req->marker || gd::marker_applies(*req->marker, env) == true) {
      names.push_back(req->name);
    }
  }
  return names;
}

}  // namespace

TEST_CASE("core metadata: torch 2.11.0's METADATA from the H200 host", "[python][probes][python_metadata]") {
  CoreMetadata torch = metadata_fixture("torch-2.11.0.METADATA");
  CHECK(torch.metadata_version == "2.4");
  CHECK(torch.name == "torch");
  CHECK(torch.version == "2.11.0");
  CHECK(torch.requires_python == ">=3.10");
  CHECK(torch.provides_extra == std::vector<std::string>{"optree", "opt-einsum", "pyyaml"});
  REQUIRE(torch.requires_dist.size() == 17);
  CHECK(torch.requires_dist.front() == "filelock");
  CHECK(torch.requires_dist[7] ==
        "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.2; "
        "platform_system == \"Linux\"");
  CHECK(torch.requires_dist.back() == "pyyaml; extra == \"pyyaml\"");

  // On that host, pip installs the 14 requirements without an extra.
  auto names = applying(torch, h200_env());
  CHECK(names == std::vector<std::string>{"filelock", "typing-extensions", "setuptools", "sympy", "networkx",
                                          "jinja2", "fsspec", "cuda-toolkit", "cuda-bindings", "nvidia-cudnn-cu13",
                                          "nvidia-cusparselt-cu13", "nvidia-nccl-cu13", "nvidia-nvshmem-cu13",
                                          "triton"});
  // On macOS none of the CUDA ones.
  gd::MarkerEnv mac = h200_env();
  mac.sys_platform = "darwin";
  mac.platform_system = "Darwin";
  mac.platform_machine = "arm64";
  CHECK(applying(torch, mac).size() == 7);
}

TEST_CASE("core metadata: the description after the blank line is not read", "[python][probes][python_metadata]") {
  std::string text = fixture("torch-2.11.0.METADATA");
  std::size_t blank = text.find("\n\n");
  REQUIRE(blank != std::string::npos);
  CHECK(text.size() - blank > 20000);  // torch's README follows
  text += "\nRequires-Dist: not-a-header\nName: not-torch\n";
  auto meta = parse_core_metadata(text);
  REQUIRE(meta);
  CHECK(meta->name == "torch");
  CHECK(meta->requires_dist.size() == 17);
}

TEST_CASE("core metadata: the installed CUDA wheels satisfy torch's pins", "[python][probes][python_metadata]") {
  CoreMetadata torch = metadata_fixture("torch-2.11.0.METADATA");
  CoreMetadata toolkit = metadata_fixture("cuda_toolkit-13.0.2.METADATA");
  CoreMetadata runtime = metadata_fixture("nvidia_cuda_runtime-13.0.96.METADATA");
  CoreMetadata cudnn = metadata_fixture("nvidia_cudnn_cu13-9.19.0.56.METADATA");
  CHECK(runtime.name == "nvidia-cuda-runtime");
  CHECK(runtime.version == "13.0.96");
  CHECK(runtime.requires_python == ">=3");
  CHECK(runtime.requires_dist.empty());
  CHECK(cudnn.requires_dist == std::vector<std::string>{"nvidia-cublas"});
  // The folder is nvidia_cuda_runtime-13.0.96.dist-info: the same name once normalized.
  CHECK(normalize_name("nvidia_cuda_runtime") == normalize_name(runtime.name));

  // torch asks cuda-toolkit==13.0.2 with eleven extras; cuda-toolkit's own Requires-Dist then
  // brings one nvidia-* wheel per extra.
  std::optional<gd::Requirement> toolkit_req;
  for (const auto& line : torch.requires_dist) {
    auto req = gd::parse_requirement(line);
    REQUIRE(req);
    if (normalize_name(req->name) == "cuda-toolkit") {
      toolkit_req = req;
    }
  }
  REQUIRE(toolkit_req);
  CHECK(toolkit_req->extras.size() == 11);
  CHECK(gd::specifiers_allow(toolkit_req->specifiers, toolkit.version) == true);

  gd::MarkerEnv env = h200_env();
  env.extras = toolkit_req->extras;
  auto brought = applying(toolkit, env);
  CHECK(brought.size() == 11);
  CHECK(std::count(brought.begin(), brought.end(), "nvidia-cuda-runtime") == 1);
  CHECK(std::count(brought.begin(), brought.end(), "nvidia-cuda-nvcc") == 0);  // only with [nvcc] or [all]
  for (const auto& line : toolkit.requires_dist) {
    auto req = gd::parse_requirement(line);
    REQUIRE(req);
    REQUIRE(req->marker);
    CHECK(gd::marker_mentions_extra(*req->marker));  // nothing is a hard dependency of the meta-package
    if (req->name == "nvidia-cuda-runtime") {
      CHECK(req->specifiers[0].text() == "==13.0.96.*");
      CHECK(gd::specifiers_allow(req->specifiers, runtime.version) == true);
    }
  }
  // Without extras, cuda-toolkit itself brings nothing.
  CHECK(applying(toolkit, h200_env()).empty());
}

TEST_CASE("core metadata: torchvision pins the torch beside it", "[python][probes][python_metadata]") {
  CoreMetadata vision = metadata_fixture("torchvision-0.26.0.METADATA");
  CHECK(vision.version == "0.26.0");
  CHECK(vision.requires_python == ">=3.10,!=3.14.1");
  auto torch_pin = gd::parse_requirement(vision.requires_dist.at(1));
  REQUIRE(torch_pin);
  CHECK(torch_pin->name == "torch");
  CHECK(gd::specifiers_allow(torch_pin->specifiers, "2.11.0") == true);
  CHECK(gd::specifiers_allow(torch_pin->specifiers, "2.11.0+cu130") == true);  // torch.__version__
  CHECK(gd::specifiers_allow(torch_pin->specifiers, "2.10.0+cu128") == false);
  auto python = gd::parse_specifiers(vision.requires_python);
  REQUIRE(python);
  CHECK(gd::specifiers_allow(*python, "3.12.3") == true);
  CHECK(gd::specifiers_allow(*python, "3.14.1") == false);
  CHECK(applying(vision, h200_env()) == std::vector<std::string>{"numpy", "torch", "pillow"});
}

TEST_CASE("core metadata: torch 2.2.2 in a wheel's METADATA and an egg's PKG-INFO", "[python][probes][python_metadata]") {
  CoreMetadata wheel = metadata_fixture("torch-2.2.2.METADATA-header");
  CoreMetadata egg = metadata_fixture("torch-2.2.2.egg-info.PKG-INFO-header");
  CHECK(wheel.version == "2.2.2");
  CHECK(egg.version == "2.2.2");
  CHECK(wheel.requires_dist.size() == 20);
  // The pytorch/pytorch:2.2.2 image's egg lists no nvidia-* wheel (it uses the image's CUDA).
  CHECK(egg.requires_dist.size() == 8);
  auto wheel_names = applying(wheel, h200_env());
  CHECK(std::count(wheel_names.begin(), wheel_names.end(), "nvidia-cudnn-cu12") == 1);
  // "triton (==2.2.0) ; ... and python_version < "3.12"": not on Python 3.12.
  CHECK(std::count(wheel_names.begin(), wheel_names.end(), "triton") == 0);
  gd::MarkerEnv py311 = h200_env();
  py311.python_version = "3.11";
  auto names_311 = applying(wheel, py311);
  CHECK(std::count(names_311.begin(), names_311.end(), "triton") == 1);
}

TEST_CASE("core metadata: folded header lines", "[python][probes][python_metadata]") {
  // libcst 1.0.1 (a wheel from PyPI): a 100-line License header, folded, with lines of only
  // spaces inside it, before the Requires-Dist lines.
  CoreMetadata libcst = metadata_fixture("libcst-1.0.1.METADATA");
  CHECK(libcst.name == "libcst");
  CHECK(libcst.requires_python == ">=3.7");
  REQUIRE(libcst.requires_dist.size() == 24);
  CHECK(libcst.requires_dist.front() == "typing-extensions (>=3.7.4.2)");
  CHECK(libcst.requires_dist.back() == "pyre-check (==0.9.10) ; (platform_system != \"Windows\") and extra == 'dev'");
  CHECK(applying(libcst, h200_env()) == std::vector<std::string>{"typing-extensions", "typing-inspect", "pyyaml"});

  // toml 0.10.2 (Debian's python3-toml, an egg-info): Metadata-Version 1.2 with the whole
  // README folded into a Description header, and no blank line at all.
  CoreMetadata toml = metadata_fixture("toml-0.10.2.PKG-INFO");
  CHECK(toml.metadata_version == "1.2");
  CHECK(toml.version == "0.10.2");
  CHECK(toml.requires_python == ">=2.6, !=3.0.*, !=3.1.*, !=3.2.*");
  auto python = gd::parse_specifiers(toml.requires_python);
  REQUIRE(python);
  CHECK(gd::specifiers_allow(*python, "3.1.4") == false);
  CHECK(gd::specifiers_allow(*python, "3.12.3") == true);

  // RFC 822 unfolding keeps a continuation's white space.
  auto folded = parse_core_metadata("Name: x\nVersion: 1\nRequires-Dist: torch\n (>=2.0) ; extra == 'a'\n");
  REQUIRE(folded);
  CHECK(folded->requires_dist == std::vector<std::string>{"torch (>=2.0) ; extra == 'a'"});
}

TEST_CASE("core metadata: line endings, case and malformed input", "[python][probes][python_metadata]") {
  std::string text = fixture("nvidia_cuda_runtime-13.0.96.METADATA");
  std::string crlf;
  for (char c : text) {
    if (c == '\n') {
      crlf += '\r';
    }
    crlf += c;
  }
  auto windows = parse_core_metadata(crlf);
  REQUIRE(windows);
  CHECK(windows->version == "13.0.96");

  auto lower = parse_core_metadata("name: a\nVERSION: 2\nrequires-dist: b\n");
  REQUIRE(lower);
  CHECK(lower->requires_dist == std::vector<std::string>{"b"});
  auto first_wins = parse_core_metadata("Name: a\nVersion: 1\nVersion: 2\n");
  REQUIRE(first_wins);
  CHECK(first_wins->version == "1");

  CHECK_FALSE(parse_core_metadata(""));
  CHECK_FALSE(parse_core_metadata("Name: a\n"));                       // no Version
  CHECK_FALSE(parse_core_metadata("\nName: a\nVersion: 1\n"));         // headers ended at once
  CHECK_FALSE(parse_core_metadata("garbage line\nName: a\nVersion: 1\n"));
  CHECK_FALSE(parse_core_metadata(std::string("\x7f" "ELF\x02\x01\x01\0\0", 9)));
  // A header block that never ends is read only to its first MiB.
  std::string endless = "Name: a\nVersion: 1\n";
  while (endless.size() < (3u << 20)) {
    endless += "Classifier: Programming Language :: Python :: 3\n";
  }
  endless += "Requires-Dist: past-the-limit\n";
  auto bounded = parse_core_metadata(endless);
  REQUIRE(bounded);
  CHECK(bounded->requires_dist.empty());
  // One endless line: the limit applies to it too.
  std::string one_line = "Name: a\nVersion: 1\nRequires-Dist: " + std::string(2u << 20, 'x');
  auto cut = parse_core_metadata(one_line);
  REQUIRE(cut);
  CHECK(cut->requires_dist.empty());
}

TEST_CASE("normalize_name: PEP 503", "[python][probes][python_metadata]") {
  CHECK(normalize_name("Nvidia_CUDA.runtime__cu12") == "nvidia-cuda-runtime-cu12");
  CHECK(normalize_name("flash_attn") == "flash-attn");
  CHECK(normalize_name("torch") == "torch");
  CHECK(normalize_name("A-_.-B") == "a-b");
  CHECK(normalize_name("") == "");
}

TEST_CASE("torch version.py: CUDA, CPU and ROCm wheels", "[python][probes][python_metadata]") {
  auto cu130 = parse_torch_version_py(fixture("torch-2.11.0+cu130.version.py"));
  REQUIRE(cu130);
  CHECK(cu130->version == "2.11.0+cu130");
  CHECK(cu130->declares_cuda);
  CHECK(cu130->cuda == "13.0");
  CHECK(cu130->git_version == "70d99e998b4955e0049d13a98d77ae1b14db1f45");
  CHECK(cu130->debug == false);
  CHECK_FALSE(cu130->hip);
  CHECK_FALSE(cu130->rocm);
  CHECK_FALSE(cu130->xpu);
  auto version = gd::parse_python_version(cu130->version);
  REQUIRE(version);
  CHECK(version->local == std::vector<std::string>{"cu130"});

  auto cu124 = parse_torch_version_py(fixture("torch-2.6.0+cu124.version.py"));
  REQUIRE(cu124);
  CHECK(cu124->version == "2.6.0+cu124");
  CHECK(cu124->cuda == "12.4");
  CHECK(cu124->git_version == "2236df1770800ffea5697b11b0bb0d910b2e59e1");

  auto cpu = parse_torch_version_py(fixture("torch-2.6.0+cpu.version.py"));
  REQUIRE(cpu);
  CHECK(cpu->version == "2.6.0+cpu");
  CHECK(cpu->declares_cuda);  // the line is there ...
  CHECK_FALSE(cpu->cuda);     // ... and says None
  CHECK(cpu->git_version == cu124->git_version);  // same release, other build

  auto rocm = parse_torch_version_py(fixture("torch-2.3.0.dev20240308+rocm6.0.version.py"));
  REQUIRE(rocm);
  CHECK(rocm->version == "2.3.0.dev20240308+rocm6.0");
  CHECK_FALSE(rocm->cuda);
  CHECK(rocm->hip == "6.0.32830-d62f6a171");

  // pytorch's Bazel template (torch/version.py.tpl) writes no annotations and "" quotes.
  auto bazel = parse_torch_version_py("__version__ = '2.6.0'\ndebug = False\ncuda = '12.4'\n"
                                      "# TODO: use workspace status to stamp the correct version\n"
                                      "git_version = \"\"\nhip = None\n");
  REQUIRE(bazel);
  CHECK(bazel->cuda == "12.4");
  CHECK(bazel->git_version.empty());
}

TEST_CASE("torch version.py: what is not a literal assignment is ignored", "[python][probes][python_metadata]") {
  auto odd = parse_torch_version_py("__version__ = \"2.5.1\"  # release\r\n"
                                    "cuda = get_cuda()\n"
                                    "if True:\n    hip = '6.2'\n"
                                    "xpu == 'x'\n"
                                    "rocm: Optional[str] = '6.2' + ''\n");
  REQUIRE(odd);
  CHECK(odd->version == "2.5.1");
  CHECK_FALSE(odd->declares_cuda);
  CHECK_FALSE(odd->hip);
  CHECK_FALSE(odd->xpu);
  CHECK_FALSE(odd->rocm);

  CHECK_FALSE(parse_torch_version_py(""));
  CHECK_FALSE(parse_torch_version_py("cuda: Optional[str] = '13.0'\n"));  // no __version__
  CHECK_FALSE(parse_torch_version_py("__version__ = '2.6.0\n"));          // unterminated
  CHECK_FALSE(parse_torch_version_py("__version__ = None\n"));
  CHECK_FALSE(parse_torch_version_py(std::string(1 << 20, 'x')));
}

TEST_CASE("direct_url.json: archives, folders and VCS checkouts", "[python][probes][python_metadata]") {
  // As pip writes it for a wheel from a URL (the shape quoted in uv's DirectUrl docs).
  auto wheel = parse_direct_url(
      R"({"archive_info": {"hash": "sha256=75909db2664838d015e3d9139004ee16711748a52c8f336b52882266540215d8", )"
      R"("hashes": {"sha256": "75909db2664838d015e3d9139004ee16711748a52c8f336b52882266540215d8"}}, )"
      R"("url": "https://files.pythonhosted.org/packages/b8/8b/31273bf66016be6ad22bb7345c37ff350276cfd46e389a0c2ac5da9d9073/wheel-0.41.2-py3-none-any.whl"})");
  REQUIRE(wheel);
  CHECK(wheel->kind == gd::DirectUrl::Kind::archive);
  CHECK(wheel->url.ends_with("wheel-0.41.2-py3-none-any.whl"));

  // The Direct URL Data Structure specification's examples.
  auto vcs = parse_direct_url(R"({"url": "https://github.com/pypa/pip.git", "vcs_info": {"vcs": "git",
      "requested_revision": "1.3.1", "commit_id": "7921be1537eac1e97bc40179a57f0349c2aabfb9"}})");
  REQUIRE(vcs);
  CHECK(vcs->kind == gd::DirectUrl::Kind::vcs);
  CHECK(vcs->vcs == "git");
  CHECK(vcs->commit_id == "7921be1537eac1e97bc40179a57f0349c2aabfb9");
  CHECK(vcs->requested_revision == "1.3.1");
  auto editable = parse_direct_url(R"({"url": "file:///home/user/project", "dir_info": {"editable": true}})");
  REQUIRE(editable);
  CHECK(editable->kind == gd::DirectUrl::Kind::directory);
  CHECK(editable->editable);
  auto folder = parse_direct_url(R"({"url": "file:///home/user/project", "dir_info": {}})");
  REQUIRE(folder);
  CHECK_FALSE(folder->editable);

  CHECK_FALSE(parse_direct_url(""));
  CHECK_FALSE(parse_direct_url("not json"));
  CHECK_FALSE(parse_direct_url("[]"));
  CHECK_FALSE(parse_direct_url(R"({"url": 5, "archive_info": {}})"));
  CHECK_FALSE(parse_direct_url(R"({"url": "https://x/y.whl"})"));  // no info: not PEP 610
  CHECK_FALSE(parse_direct_url(R"({"url": "https://x/y.whl", "archive_info": {)"));
  CHECK_FALSE(parse_direct_url(std::string(100000, '[')));
}

TEST_CASE("wheel names: the torch a flash-attn wheel was built for", "[python][probes][python_metadata]") {
  // A flash-attn release asset (github.com/Dao-AILab/flash-attention/releases), as direct_url.json
  // records it when the wheel is installed from its URL.
  auto direct = parse_direct_url(
      R"({"url": "https://github.com/Dao-AILab/flash-attention/releases/download/v2.7.4.post1/flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp312-cp312-linux_x86_64.whl", "archive_info": {}})");
  REQUIRE(direct);
  auto wheel = parse_wheel_filename(direct->url);
  REQUIRE(wheel);
  CHECK(wheel->distribution == "flash_attn");
  CHECK(wheel->version == "2.7.4.post1+cu12torch2.6cxx11abiFALSE");
  CHECK(wheel->python_tag == "cp312");
  CHECK(wheel->abi_tag == "cp312");
  CHECK(wheel->platform_tag == "linux_x86_64");
  auto tag = parse_torch_build_tag(wheel->version);
  REQUIRE(tag);
  CHECK(tag->torch == "2.6");
  CHECK(tag->cuda == "12");
  CHECK(tag->cxx11_abi == false);

  // Older releases named CUDA major and minor; nvcr images need the C++11 ABI build.
  auto older = parse_torch_build_tag("cu118torch2.0cxx11abiTRUE");
  REQUIRE(older);
  CHECK(older->cuda == "118");
  CHECK(older->torch == "2.0");
  CHECK(older->cxx11_abi == true);
  auto newer = parse_wheel_filename("flash_attn-2.8.3+cu12torch2.8cxx11abiTRUE-cp313-cp313-linux_x86_64.whl");
  REQUIRE(newer);
  CHECK(parse_torch_build_tag(newer->version).value_or(gd::TorchBuildTag{}).torch == "2.8");

  // download.pytorch.org links escape the "+".
  auto torch = parse_wheel_filename(
      "https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=abc");
  REQUIRE(torch);
  CHECK(torch->distribution == "torch");
  CHECK(torch->version == "2.6.0+cu124");
  CHECK_FALSE(parse_torch_build_tag(torch->version));  // no "torch<version>" in "cu124"
  auto build_tag = parse_wheel_filename("pkg-1.0-1-py3-none-any.whl");
  REQUIRE(build_tag);
  CHECK(build_tag->build == "1");

  CHECK_FALSE(parse_wheel_filename("flash_attn-2.7.4.post1.tar.gz"));
  CHECK_FALSE(parse_wheel_filename("name-1.0-py3-none.whl"));
  CHECK_FALSE(parse_wheel_filename("name-1.0-x-py3-none-any.whl"));  // a build tag starts with a digit
  CHECK_FALSE(parse_wheel_filename("--.whl"));
  CHECK_FALSE(parse_wheel_filename(std::string(10000, 'a') + ".whl"));
  CHECK_FALSE(parse_torch_build_tag("cu12torch"));
  CHECK_FALSE(parse_torch_build_tag("cu12torch2"));
  CHECK_FALSE(parse_torch_build_tag("cu12torch.6"));
  CHECK_FALSE(parse_torch_build_tag(""));
}

}  // namespace GD_UNITY_ID
