# The host build with AddressSanitizer and UndefinedBehaviorSanitizer, and libFuzzer targets
# (toolchain/host-clang-common.cmake: clang 16, libc++, linked dynamically). Used by `make test`
# (unit and replay suites under the sanitizers, each fuzz target briefly) and `make fuzz`.
set(GD_SANITIZE_FLAGS "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer")
include(${CMAKE_CURRENT_LIST_DIR}/host-clang-common.cmake)
