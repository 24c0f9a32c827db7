#include "probes/container/cuda_visible_devices.hpp"

#include <algorithm>
#include <charconv>

namespace gd {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string_view> entries_of(std::string_view value) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    std::size_t end = value.find(',', pos);
    out.push_back(trim(value.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos)));
    if (end == std::string_view::npos) {
      return out;
    }
    pos = end + 1;
  }
}

bool all_of(std::string_view text, std::string_view allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string_view::npos;
}

constexpr std::string_view k_digits = "0123456789";
constexpr std::string_view k_uuid_chars = "0123456789abcdefABCDEF-";

bool is_index(std::string_view entry) { return all_of(entry, k_digits); }

bool is_gpu_uuid(std::string_view entry) {
  return entry.starts_with("GPU-") && all_of(entry.substr(4), k_uuid_chars);
}

// "MIG-<uuid>" (R470+) or "MIG-GPU-<uuid>/<gpu instance>/<compute instance>" (R450).
bool is_mig_uuid(std::string_view entry) {
  if (!entry.starts_with("MIG-")) {
    return false;
  }
  std::string_view rest = entry.substr(4);
  if (rest.starts_with("GPU-")) {
    std::size_t first = rest.find('/');
    std::size_t second = first == std::string_view::npos ? first : rest.find('/', first + 1);
    return second != std::string_view::npos && is_gpu_uuid(rest.substr(0, first)) &&
           is_index(rest.substr(first + 1, second - first - 1)) && is_index(rest.substr(second + 1));
  }
  return all_of(rest, k_uuid_chars);
}

bool well_formed(std::string_view entry) { return is_index(entry) || is_gpu_uuid(entry) || is_mig_uuid(entry); }

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) {
    return false;
  }
  return std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(a) == lower(b);
  });
}

}  // namespace

std::optional<std::string> malformed_visible_device(std::string_view value) {
  if (trim(value).empty()) {
    return std::nullopt;
  }
  std::vector<std::string_view> seen;
  for (std::string_view entry : entries_of(value)) {
    if (!well_formed(entry) || std::find(seen.begin(), seen.end(), entry) != seen.end()) {
      return std::string(entry);
    }
    seen.push_back(entry);
  }
  return std::nullopt;
}

std::optional<std::string> absent_visible_device(std::string_view value, long gpu_count,
                                                 const std::vector<std::string>& uuids) {
  if (trim(value).empty()) {
    return std::nullopt;
  }
  for (std::string_view entry : entries_of(value)) {
    if (!well_formed(entry)) {
      return std::nullopt;  // CUDA stops here; the malformed check reports it
    }
    if (is_index(entry)) {
      long index = 0;
      auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), index);
      if (error != std::errc() || index >= gpu_count) {
        return std::string(entry);
      }
    } else if (is_gpu_uuid(entry) && !uuids.empty()) {
      bool found = std::any_of(uuids.begin(), uuids.end(),
                               [&](const std::string& uuid) { return starts_with_ignoring_case(uuid, entry); });
      if (!found) {
        return std::string(entry);
      }
    }
  }
  return std::nullopt;
}

}  // namespace gd
