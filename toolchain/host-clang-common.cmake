# What the host builds under the sanitizers share (host-clang-sanitize.cmake: ASan + UBSan and
# libFuzzer; host-clang-tsan.cmake: ThreadSanitizer): Debian's clang 16 with LLVM's libc++ (C++23's
# <expected>), linked dynamically (the sanitizers need it), with GD_SANITIZE_FLAGS, which the
# including file sets first. The CUDA helper sub-build still uses zig's toolchain.
set(GPUDOCTOR_ZIG_TARGET x86_64-linux-musl)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
include(${CMAKE_CURRENT_LIST_DIR}/zig-common.cmake)
unset(CMAKE_AR CACHE)
unset(CMAKE_RANLIB CACHE)
set(CMAKE_C_COMPILER clang-16)
set(CMAKE_CXX_COMPILER clang++-16)
set(CMAKE_AR ar CACHE FILEPATH "" FORCE)
set(CMAKE_RANLIB ranlib CACHE FILEPATH "" FORCE)
set(GPUDOCTOR_SANITIZE ON)
set(CMAKE_BUILD_TYPE Debug CACHE STRING "")
set(CMAKE_C_FLAGS_INIT "${GD_SANITIZE_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "-stdlib=libc++ ${GD_SANITIZE_FLAGS}")
# Line tables only: sanitizer reports and libFuzzer need file:line, not types and variables, and
# full debug info of the header-only libraries was a fifth of this build's time (issue 25).
set(CMAKE_CXX_FLAGS_DEBUG_INIT "-gline-tables-only -O1")
set(CMAKE_C_FLAGS_DEBUG_INIT "-gline-tables-only -O1")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-stdlib=libc++ ${GD_SANITIZE_FLAGS}")
