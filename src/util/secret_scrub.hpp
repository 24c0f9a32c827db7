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
std::string scrub_secrets(std::string_view value);

}  // namespace gd
