#pragma once
// --format npd: the answer of a Kubernetes node-problem-detector custom plugin, and the one line
// a scheduler's health check turns into a drain reason. The exit code says the condition (0 ok,
// 1 problem, 2 unknown: gpudoctor itself failed), stdout one line of at most 80 bytes (NPD's
// default max_output_length) that names the first problem.

#include <cstddef>
#include <string>

#include "core/finding.hpp"
#include "report/report.hpp"

namespace gd {

inline constexpr std::size_t k_npd_max_line = 80;

/// "<rule id>: <title>" of the first finding at or above `fail_on` (findings are ordered root
/// cause first), cut to k_npd_max_line bytes on a UTF-8 boundary with "..."; "no problems
/// found" (or "no node problems found" under --scope node) when there is none. With a newline.
std::string render_npd(const Report& report, Severity fail_on);

}  // namespace gd
