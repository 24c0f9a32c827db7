# Target aarch64-linux-musl (built with zig; see toolchain/README.md).
set(GPUDOCTOR_ZIG_TARGET aarch64-linux-musl)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/zig-common.cmake)
# Build-time tools (the rule compiler) and tests run under qemu-user.
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/qemu-aarch64-static)
