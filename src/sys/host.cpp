#include "sys/host.hpp"

#include <cstring>

#include "util/errno_names.hpp"
#include "util/secret_scrub.hpp"

namespace gd {
namespace {

struct KindName {
  FileKind kind;
  std::string_view name;
};
constexpr KindName k_kind_names[] = {
    {FileKind::regular, "file"},        {FileKind::directory, "dir"},   {FileKind::symlink, "symlink"},
    {FileKind::char_device, "char"},    {FileKind::block_device, "block"}, {FileKind::fifo, "fifo"},
    {FileKind::socket, "socket"},       {FileKind::other, "other"},
};

struct StatusName {
  HelperOutcome::Status status;
  std::string_view name;
};
constexpr StatusName k_status_names[] = {
    {HelperOutcome::Status::finished, "finished"},       {HelperOutcome::Status::timed_out, "timed-out"},
    {HelperOutcome::Status::crashed, "crashed"},         {HelperOutcome::Status::no_loader, "no-loader"},
    {HelperOutcome::Status::exec_failed, "exec-failed"}, {HelperOutcome::Status::not_run, "not-run"},
};

}  // namespace

std::string IoError::describe() const { return errno_name(code) + " (" + std::strerror(code) + ")"; }

std::string_view to_string(FileKind kind) {
  for (const auto& entry : k_kind_names) {
    if (entry.kind == kind) {
      return entry.name;
    }
  }
  return "other";
}

std::optional<FileKind> file_kind_from_string(std::string_view text) {
  for (const auto& entry : k_kind_names) {
    if (entry.name == text) {
      return entry.kind;
    }
  }
  return std::nullopt;
}

std::string_view to_string(HelperOutcome::Status status) {
  for (const auto& entry : k_status_names) {
    if (entry.status == status) {
      return entry.name;
    }
  }
  return "?";
}

std::optional<HelperOutcome::Status> helper_status_from_string(std::string_view text) {
  for (const auto& entry : k_status_names) {
    if (entry.name == text) {
      return entry.status;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Host::env(std::string_view name) {
  std::optional<std::string> value = raw_env(name);
  // An allowed variable can still carry a pasted token (a path with hf_..., a URL password).
  if (value) *value = scrub_secrets(*value);
  return value;
}

}  // namespace gd
