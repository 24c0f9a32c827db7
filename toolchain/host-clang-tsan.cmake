# The host build with ThreadSanitizer (`make tsan`, tests/tsan_fleet.sh; toolchain/
# host-clang-common.cmake: clang 16, libc++, linked dynamically), for `gpudoctor fleet`'s threads
# (issue 27 item 2). GPUDOCTOR_SANITIZE_THREAD leaves out what the ASan build adds for libFuzzer
# (-fsanitize=fuzzer-no-link: its coverage counters are written by every thread without a lock,
# by design, and TSan reports each as a race) and keeps the binary's symbols (TSan's reports need
# its functions and lines). Debian's libc++.so itself is not instrumented: its mutexes and threads
# are pthread's, which TSan intercepts (no false report), and the templates gpudoctor
# instantiates (containers, strings' inline parts) are compiled here, instrumented.
set(GD_SANITIZE_FLAGS "-fsanitize=thread -fno-omit-frame-pointer")
set(GPUDOCTOR_SANITIZE_THREAD ON)
include(${CMAKE_CURRENT_LIST_DIR}/host-clang-common.cmake)
