#pragma once
// Secrets inside values that are otherwise fine to report: a token pasted into a path list
// (LD_LIBRARY_PATH=/opt/hf_AbC.../lib), credentials in a URL (https://user:pass@host/...). The
// environment allowlist keeps secret variables out; this keeps secrets out of allowed ones.

#include <string>
#include <string_view>

namespace gd {

inline constexpr std::string_view k_redacted_secret = "<secret>";

/// `value` with every token-shaped run replaced by k_redacted_secret: known token prefixes
/// (GitHub ghp_/gho_/ghu_/ghs_/ghr_/github_pat_, Hugging Face hf_, AWS AKIA/ASIA key ids, Slack
/// xox?-, OpenAI-style sk-, GitLab glpat-, npm_), the password of a URL's user:password@, and any
/// run of 40 or more letters, digits, '_' or '-' that mixes letters and digits (API keys such as
/// W&B's 40 hex digits). Nix store hashes (32 characters) and version strings are left alone.
/// Environment values (sys/host: Host::env) go through this one.
std::string scrub_secrets(std::string_view value);

/// The same without the 40-character rule: only secrets of a documented shape (the prefixes, AWS
/// key ids, URL passwords). For documents gpudoctor re-emits whole (fleet and diff over foreign
/// reports, Prometheus labels): their strings hold legitimate long runs the generic rule would
/// destroy (torch's 40-hex git_version, a kernel log's NVRM function names, build ids, digests),
/// and a rule answer or a diff must not change because two such values both became <secret>.
std::string scrub_known_secrets(std::string_view value);

/// Whether scrub_known_secrets would change `value` (a check that copies nothing).
bool holds_known_secret(std::string_view value);

}  // namespace gd
