# The host build with ThreadSanitizer (`make tsan`, tests/tsan_fleet.sh): Debian's clang 16 with
# LLVM's libc++, linked dynamically, as host-clang-sanitize.cmake, for `gpudoctor fleet`'s
# threads (issue 27 item 2). GPUDOCTOR_SANITIZE_THREAD leaves out what the ASan build adds for
# libFuzzer (-fsanitize=fuzzer-no-link: its coverage counters are written by every thread
# without a lock, by design, and TSan reports each as a race) and keeps the binary's symbols
# (TSan's reports need its functions and lines). Debian's libc++.so itself is not instrumented:
# its mutexes and threads are pthread's, which TSan intercepts (no false report), and the
# templates gpudoctor instantiates (containers, strings' inline parts) are compiled here,
# instrumented.
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
set(GPUDOCTOR_SANITIZE_THREAD ON)
set(CMAKE_BUILD_TYPE Debug CACHE STRING "")
set(GD_SANITIZE_FLAGS "-fsanitize=thread -fno-omit-frame-pointer")
set(CMAKE_C_FLAGS_INIT "${GD_SANITIZE_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "-stdlib=libc++ ${GD_SANITIZE_FLAGS}")
# Line tables only, as the ASan build: reports need file:line, not types and variables.
set(CMAKE_CXX_FLAGS_DEBUG_INIT "-gline-tables-only -O1")
set(CMAKE_C_FLAGS_DEBUG_INIT "-gline-tables-only -O1")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-stdlib=libc++ ${GD_SANITIZE_FLAGS}")
