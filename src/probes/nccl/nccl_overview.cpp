// The overview line of the nccl layer (probes/nccl): which NCCL the stack loads, and the
// interfaces NCCL_SOCKET_IFNAME names.

#include "probes/nccl/nccl_overview.hpp"

#include <fmt/format.h>

#include "core/fact_key.hpp"

namespace gd::areas {
namespace {

struct CopyLine {
  std::string version;  ///< "2.27.3" or "unknown"
  std::string origin;   ///< "nvidia-nccl-cu12 wheel", "torch's own copy", "system (ld.so.cache)"
};

/// "2.27.3 nvidia-nccl-cu12 wheel /site/.../libnccl.so.2" (probes/nccl/nccl_copies copy_text).
CopyLine split_copy_line(std::string_view line) {
  CopyLine out;
  std::size_t space = line.find(' ');
  out.version = std::string(line.substr(0, space));
  if (space == std::string_view::npos) return out;
  std::string_view rest = line.substr(space + 1);
  out.origin = std::string(rest.substr(0, rest.find(" /")));
  return out;
}

/// "wheel", "torch", "system": the short word for a list of copies.
std::string_view short_origin(std::string_view origin) {
  if (origin.ends_with("wheel")) return "wheel";
  if (origin.starts_with("torch")) return "torch";
  if (origin.starts_with("system")) return "system";
  return origin;
}

std::string copies_text(const FactSet& facts) {
  auto count = facts.get_int("nccl.count"_fact);
  std::vector<std::string> lines = list_of(facts, "nccl.libraries"_fact);
  if (count && *count == 0) return "not installed";
  if (lines.empty()) return "copies unknown";
  if (lines.size() == 1) {
    CopyLine copy = split_copy_line(lines.front());
    std::string_view origin = copy.origin;
    if (origin.starts_with("system (") && origin.ends_with(")")) {
      // "system (ld.so.cache)" -> "2.28.9 (system, ld.so.cache)": no parentheses inside parentheses
      return fmt::format("{} (system, {})", copy.version, origin.substr(8, origin.size() - 9));
    }
    return fmt::format("{} ({})", copy.version, copy.origin);
  }
  std::vector<std::string> parts;
  for (const std::string& line : lines) {
    CopyLine copy = split_copy_line(line);
    parts.push_back(fmt::format("{} {}", copy.version, short_origin(copy.origin)));
  }
  std::string text = fmt::format("{} copies ({})", lines.size(), fmt::join(parts, ", "));
  if (auto version = facts.get_string("nccl.version"_fact)) text += ", torch loads " + *version;
  return text;
}

std::string socket_ifname_text_only(const FactSet& facts);

/// The variable as socket_ifname_text_only says it, and where it is set when a configuration
/// file sets it ("NCCL_SOCKET_IFNAME=eth0 up [/etc/nccl.conf]").
std::string socket_ifname_text(const FactSet& facts) {
  std::string text = socket_ifname_text_only(facts);
  auto origin = facts.get_string("nccl.socket_ifname.set_in"_fact);
  if (!text.empty() && origin && *origin != "the environment") text += " [" + *origin + "]";
  return text;
}

std::string socket_ifname_text_only(const FactSet& facts) {
  auto value = facts.get_string("env.nccl_socket_ifname"_fact);
  if (!value) return "";
  std::vector<std::string> unmatched = list_of(facts, "nccl.socket_ifname.unmatched"_fact);
  if (!unmatched.empty()) return fmt::format("NCCL_SOCKET_IFNAME={} ({})", *value, fmt::join(unmatched, "; "));
  std::vector<std::string> matched = list_of(facts, "nccl.socket_ifname.matched"_fact);
  std::string_view name = *value;
  if (name.starts_with('=')) name.remove_prefix(1);
  if (matched.size() == 1 && matched.front().starts_with(std::string(name) + " ")) {
    // "NCCL_SOCKET_IFNAME=eth0 up", "NCCL_SOCKET_IFNAME==eth0 up"
    return "NCCL_SOCKET_IFNAME=" + *value + matched.front().substr(name.size());
  }
  if (!matched.empty()) return fmt::format("NCCL_SOCKET_IFNAME={} ({})", *value, fmt::join(matched, ", "));
  return "NCCL_SOCKET_IFNAME=" + *value;
}

}  // namespace

AreaLine nccl_overview_line(const Layer& layer, const FactSet& facts, const std::vector<Finding>& findings) {
  AreaLine line = start_line(layer);
  if (is_left_out(facts, "nccl.count"_fact)) {
    line.status = AreaStatus::skipped;
    line.summary = "skipped (--scope node: the job's environment chooses NCCL)";
    return line;
  }
  std::vector<std::string> parts = {copies_text(facts)};
  if (std::string ifname = socket_ifname_text(facts); !ifname.empty()) parts.push_back(ifname);
  line.summary = fmt::format("{}", fmt::join(parts, ", "));
  const Fact* count = facts.find("nccl.count"_fact);
  bool unknown = !count || count->state == FactState::unknown;
  line.status = status_for(findings, layer, unknown ? AreaStatus::unknown : AreaStatus::ok);
  return line;
}

}  // namespace gd::areas
