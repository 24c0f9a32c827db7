#pragma once
// The last step before a report leaves the process, in every format (text, --json, markdown,
// Prometheus, npd, --textfile): secrets of a documented shape (a Hugging Face hf_ token, a GitHub
// ghp_ token, an AWS AKIA key id, a URL's password) removed from every string, whatever source
// fed it: an environment variable (already scrubbed by Host::env), a file of a --root tree or of
// a replayed capture, libcuda's output. Only the documented shapes: the 40-character rule that
// Host::env adds would destroy values users and rules need (torch's git_version, NVRM function
// names in kernel log lines, build ids). The rules have run on the unscrubbed facts by then, so
// their answers are unchanged.

#include "report/report.hpp"

namespace gd {

/// A copy of `report` with every string (run, overview, findings, checks that could not decide,
/// facts' values, reasons and sources, the capture) through scrub_known_secrets.
Report scrub_report_secrets(const Report& report);

/// Whether scrub_report_secrets would change anything: a read-only pass, so that the usual
/// report (nothing to scrub) is printed as it is, without a copy of it and its capture.
bool report_holds_secrets(const Report& report);

}  // namespace gd
