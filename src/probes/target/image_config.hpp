#pragma once
// The variables an image's container starts with, from its configuration (`--image-config`, or
// the config.json beside a runtime bundle's rootfs): NVIDIA_REQUIRE_CUDA, NVIDIA_DRIVER_CAPABILITIES,
// PATH, LD_LIBRARY_PATH... A pre-flight check reads the image's variables, never the caller's.

#include <expected>
#include <map>
#include <string>
#include <string_view>

namespace gd {

/// Accepts an OCI image configuration (`{"config": {"Env": [...]}}`, what `skopeo inspect
/// --config` and an image layout's config blob hold), an OCI runtime bundle's config.json
/// (`{"process": {"env": [...]}}`, what `umoci unpack` writes) and `docker inspect`'s output
/// (`[{"Config": {"Env": [...]}}]`). Only allowlisted names are kept (sys/env_allowlist): a
/// token in an image's variables never reaches a report. `file` names the input in errors.
std::expected<std::map<std::string, std::string>, std::string> parse_image_config(std::string_view text,
                                                                                  std::string_view file);

}  // namespace gd
