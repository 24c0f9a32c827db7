# Target x86_64-linux-gnu.2.17 (built with zig; see toolchain/README.md).
set(GPUDOCTOR_ZIG_TARGET x86_64-linux-gnu.2.17)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
include(${CMAKE_CURRENT_LIST_DIR}/zig-common.cmake)
