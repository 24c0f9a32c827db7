#include "probes/shared/process_comm.hpp"

namespace gd {
namespace {

constexpr std::size_t k_comm_bytes = 64;  // at most 15 characters and a newline

}  // namespace

std::optional<std::string> process_comm(Host& host, std::string_view pid) {
  auto comm = host.read_file("/proc/" + std::string(pid) + "/comm", k_comm_bytes);
  if (!comm) return std::nullopt;
  std::string_view text = *comm;
  if (text.ends_with('\n')) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace gd
