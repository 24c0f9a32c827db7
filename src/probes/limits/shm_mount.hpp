#pragma once
// /dev/shm as the process sees it: the filesystem mounted there (from /proc/self/mountinfo) and
// its size. NCCL creates its shared-memory segments there (NCCL troubleshooting guide, "Shared
// memory"); a container runtime mounts its own, Docker's 64 MiB unless --shm-size says more.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gd {

inline constexpr std::string_view k_shm_path = "/dev/shm";

/// The filesystem mounted on /dev/shm: the last mountinfo line with that mount point, since a
/// mount stacked over another (a container runtime's over the image's) is listed after it and is
/// the one the path reaches.
struct ShmMount {
  std::string fstype;         ///< "tmpfs" (what every runtime mounts), or what else is there
  std::string super_options;  ///< "rw,size=65536k"
};

std::optional<ShmMount> find_shm_mount(std::string_view mountinfo);

/// A tmpfs's size from its super options, as the kernel prints them (mm/shmem.c
/// shmem_show_options: ",size=%luk", left out when the size is the default, half of RAM).
struct TmpfsSize {
  enum class Kind {
    bytes,      ///< size= gives it
    default_,   ///< no size=: the default, half of MemTotal
    unlimited,  ///< size=0: no limit but memory
    malformed,  ///< a size= that is not a number with an optional k/m/g suffix
  };
  Kind kind = Kind::default_;
  std::uint64_t bytes = 0;  ///< for Kind::bytes
};

TmpfsSize tmpfs_size(std::string_view super_options);

/// MemTotal of /proc/meminfo in bytes ("MemTotal:       24683784 kB"); nullopt without that line.
std::optional<std::uint64_t> meminfo_total_bytes(std::string_view meminfo);

}  // namespace gd
