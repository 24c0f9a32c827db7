#pragma once
// Pre-flight of an image (issue 18): `--root IMAGE --target-gpu ID --target-driver VERSION
// [--image-config FILE]`. The options are checked together, before anything is read.

#include <expected>
#include <map>
#include <string>

#include "cli/options.hpp"

namespace gd {

/// The target host of --target-gpu and --target-driver, with the image's configuration file; an
/// error line when one is missing or malformed, or when there is no --root IMAGE to check.
/// `root_given`: --root was on the command line, so that `--root /` (this host's own files) is
/// told apart from no --root at all.
std::expected<TargetHost, std::string> parse_target_options(const std::string& gpu, const std::string& driver,
                                                            const Options& options, bool root_given);

/// The file the image's variables come from: --image-config, else the config.json beside IMAGE
/// when IMAGE is a runtime bundle's rootfs (`umoci unpack` writes bundle/config.json and
/// bundle/rootfs), else "" (none: an exported tree).
std::string image_config_file(const Options& options);

/// The image's variables, from image_config_file (none: only the runtime's default PATH). An
/// error line when the file cannot be read or is not an image configuration.
std::expected<std::map<std::string, std::string>, std::string> image_env_for(const Options& options);

}  // namespace gd
