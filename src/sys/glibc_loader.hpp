#pragma once
// Finding the host's glibc dynamic loader, which runs the embedded helper: gpudoctor itself is
// static musl and cannot load a glibc libcuda (GUIDE 5.1).

#include <span>
#include <string>

namespace gd {

/// The glibc dynamic loader that can run `helper_elf`: its PT_INTERP when present on this host,
/// else a known path for its architecture (Debian multiarch, RHEL lib64, Arch), else the
/// glibc PT_INTERP of a system program (NixOS keeps its loader in /nix/store). Empty: none
/// (a musl-only host), which makes exec_cuda_helper report `no_loader`.
std::string find_glibc_loader(std::span<const unsigned char> helper_elf);

}  // namespace gd
