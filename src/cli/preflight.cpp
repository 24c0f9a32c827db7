#include "cli/preflight.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "probes/target/image_config.hpp"
#include "sys/input_files.hpp"

namespace gd {
namespace {

constexpr std::size_t k_max_config_bytes = 16u << 20;  // image configurations are a few KiB

// The PATH a container gets when its image sets none (moby pkg/system defaultUnixPathEnv,
// containerd oci.defaultUnixEnv): without it no interpreter would be found in the image.
constexpr std::string_view k_default_container_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

std::map<std::string, std::string> with_default_path(std::map<std::string, std::string> env) {
  env.try_emplace("PATH", std::string(k_default_container_path));
  return env;
}

// "/", "", and any other name of this host's own root ("/.", "/usr/..", a link to /).
bool is_system_root(const std::string& root) {
  if (root.empty() || root == "/") return true;
  std::error_code error;
  return std::filesystem::equivalent(root, "/", error);
}

}  // namespace

std::expected<TargetHost, std::string> parse_target_options(const std::string& gpu, const std::string& driver,
                                                            const Options& options, bool root_given) {
  if (root_given && is_system_root(options.root)) {
    // This host's own files: a live run reads its GPU and driver itself, while a pre-flight would
    // judge its Python for a GPU and driver it may not have, and read none of its host layers.
    return std::unexpected("--root " + options.root +
                           " with --target-gpu/--target-driver would check this host's own files as an image, for "
                           "another GPU; to check this host, run gpudoctor without --root, --target-gpu and "
                           "--target-driver (it reads its GPU and driver itself); to check an image for a host, give "
                           "the image's unpacked folder: --root DIR --target-gpu ID --target-driver VERSION");
  }
  if (is_system_root(options.root)) {
    return std::unexpected("--target-gpu, --target-driver and --image-config check an image: give it with --root IMAGE "
                           "(umoci unpack --image IMAGE:TAG bundle, then --root bundle/rootfs; or docker export "
                           "$(docker create IMAGE) | tar -x -C DIR, then --root DIR --image-config FILE with FILE from "
                           "docker inspect IMAGE, since an export carries no configuration)");
  }
  if (gpu.empty()) return std::unexpected("a pre-flight check needs --target-gpu (a PCI id, a product name or sm_XY) with --target-driver");
  if (driver.empty()) return std::unexpected("a pre-flight check needs --target-driver (the host's driver version) with --target-gpu");
  auto parsed_gpu = parse_target_gpu(gpu);
  if (!parsed_gpu) return std::unexpected(parsed_gpu.error());
  auto parsed_driver = parse_target_driver(driver);
  if (!parsed_driver) return std::unexpected(parsed_driver.error());
  return TargetHost{std::move(*parsed_gpu), std::move(*parsed_driver), image_config_file(options)};
}

std::string image_config_file(const Options& options) {
  if (!options.image_config.empty()) return options.image_config;
  std::filesystem::path root = std::filesystem::path(options.root).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();
  std::filesystem::path beside = root.parent_path() / "config.json";
  struct stat st {};
  if (root.filename() == "rootfs" && ::stat(beside.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return beside.string();
  return "";
}

std::expected<std::map<std::string, std::string>, std::string> image_env_for(const Options& options) {
  std::string file = image_config_file(options);
  if (file.empty()) return with_default_path({});
  auto text = read_whole_input(file, k_max_config_bytes);
  if (!text) return std::unexpected(file + ": " + text.error());
  auto env = parse_image_config(*text, file);
  if (!env) return env;
  return with_default_path(std::move(*env));
}

}  // namespace gd
