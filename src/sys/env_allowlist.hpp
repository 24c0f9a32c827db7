#pragma once
// Which environment variables gpudoctor may read and report. Nothing else is ever read, so
// no secret (HF_TOKEN, AWS_SECRET_ACCESS_KEY, NVIDIA_API_KEY, ...) can reach a report.

#include <string_view>

namespace gd {

/// True when `name` may be read: listed or under an allowed prefix, and not secret-looking.
bool env_name_allowed(std::string_view name);

}  // namespace gd
