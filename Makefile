# Thin front for CMake (GUIDE 5.1). `make run` and `make test` are the two commands in README.md.
SHELL := /bin/bash
# Sub-makes (CMake's) should not print "Entering directory" around every step.
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc)
BUILD ?= build
BUILD_AARCH64 ?= build-aarch64
BUILD_SAN ?= build-sanitize
BUILD_TSAN ?= build-tsan
FUZZ_SECONDS ?= 60
TOOLCHAIN_OK := $(BUILD)/.toolchain-ok

.PHONY: all build run test aarch64 sanitize tsan fuzz bench clean lint-rules image release

all: build

$(TOOLCHAIN_OK): toolchain/install.sh
	@GPUDOCTOR_TOOLCHAIN_VERBOSE=1 bash toolchain/install.sh
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/Makefile: $(TOOLCHAIN_OK) CMakeLists.txt
	@cmake -S . -B $(BUILD) -DCMAKE_TOOLCHAIN_FILE=toolchain/x86_64-linux-musl.cmake \
	  -DGPUDOCTOR_AARCH64_BINARY=$(abspath $(BUILD_AARCH64))/gpudoctor >/dev/null

build: $(BUILD)/Makefile
	@cmake --build $(BUILD) -j $(JOBS) --target gpudoctor

# Builds, then diagnoses this machine. A problem found is a result, not a build failure.
run: build
	@$(BUILD)/gpudoctor; status=$$?; \
	  if [ $$status -eq 1 ]; then echo "(gpudoctor exited 1: it found a problem on this machine; the build is fine)"; fi; \
	  [ $$status -le 1 ]

# An OCI image layout of a FROM-scratch image of the static binary and LICENSE, without a daemon
# (README "Fleets", "Container image"); build/image, tagged with the version.
image: build
	@bash deploy/image/build-oci-layout.sh $(BUILD)/gpudoctor LICENSE $(BUILD)/image

aarch64: $(TOOLCHAIN_OK)
	@cmake -S . -B $(BUILD_AARCH64) -DCMAKE_TOOLCHAIN_FILE=toolchain/aarch64-linux-musl.cmake -DGPUDOCTOR_BUILD_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_AARCH64) -j $(JOBS) --target gpudoctor

# The sanitizer build (clang 16, ASan + UBSan, libFuzzer targets): toolchain/host-clang-sanitize.cmake.
sanitize: $(TOOLCHAIN_OK)
	@cmake -S . -B $(BUILD_SAN) -DCMAKE_TOOLCHAIN_FILE=toolchain/host-clang-sanitize.cmake >/dev/null
	@cmake --build $(BUILD_SAN) -j $(JOBS)

# The binary under ThreadSanitizer (clang 16): toolchain/host-clang-tsan.cmake. Only gpudoctor;
# tests/tsan_fleet.sh $(BUILD_TSAN)/gpudoctor runs `gpudoctor fleet`'s threads under it.
tsan: $(TOOLCHAIN_OK)
	@cmake -S . -B $(BUILD_TSAN) -DCMAKE_TOOLCHAIN_FILE=toolchain/host-clang-tsan.cmake -DGPUDOCTOR_BUILD_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_TSAN) -j $(JOBS) --target gpudoctor

# Every test through ctest, including the aarch64 binary under qemu-user; then the unit and
# replay suites again under the sanitizers, and each fuzz target for a few seconds; last,
# `gpudoctor fleet`'s threads under ThreadSanitizer (tests/tsan_fleet.sh).
# Each ctest run is followed by the skips it saw, with their reasons (tests/print_skips.sh), and
# each phase by its wall time; the times are listed again at the end ($(BUILD)/phase-times.txt).
PHASE_LOG = $(abspath $(BUILD))/phase-times.txt
PHASE = bash $(CURDIR)/tests/timed_phase.sh $(PHASE_LOG)
test: $(TOOLCHAIN_OK)
	@rm -f $(PHASE_LOG)
	@$(PHASE) "x86_64 binary" $(MAKE) build
	@$(PHASE) "aarch64 binary" $(MAKE) aarch64
	@$(PHASE) "sanitizer build" $(MAKE) sanitize
	@$(PHASE) "x86_64 tests build" cmake --build $(BUILD) -j $(JOBS)
	@$(PHASE) "x86_64 ctest" bash -c 'cd $(BUILD) && ctest --output-on-failure -j $(JOBS); status=$$?; bash $(CURDIR)/tests/print_skips.sh $(abspath $(BUILD)); exit $$status'
	@$(PHASE) "sanitizer ctest" bash -c 'cd $(BUILD_SAN) && ctest --output-on-failure -j $(JOBS); status=$$?; bash $(CURDIR)/tests/print_skips.sh $(abspath $(BUILD_SAN)); exit $$status'
	@$(PHASE) "thread sanitizer build" $(MAKE) tsan
	@$(PHASE) "fleet threads under TSan" bash tests/tsan_fleet.sh $(BUILD_TSAN)/gpudoctor $(BUILD)/gpudoctor
	@echo "make test: phases (wall):"; sed 's/^/  /' $(PHASE_LOG); \
	  for b in $(BUILD) $(BUILD_AARCH64) $(BUILD_SAN) $(BUILD_TSAN); do [ -f $$b/ccache-stats.log ] && \
	    echo "  $$b: compile cache $$(grep -c '^[a-z_]*cache_hit$$' $$b/ccache-stats.log) hits, $$(grep -c '^cache_miss$$' $$b/ccache-stats.log) misses (since the folder was made)"; done; true

# Every fuzz target for FUZZ_SECONDS (default 60) each, from the seeds (made from the fixtures
# into $(BUILD_SAN)/fuzz-corpus) and the found inputs kept outside the tree
# (~/.cache/gpudoctor-fuzz/found, tests/fuzz/merge_corpus.sh); the executions per target are
# printed. What the runs found (grown corpora, any crashing input) is kept in $(BUILD_SAN)/fuzz-kept/.
fuzz: sanitize
	@bash tests/hosts/make_test_inputs.sh $(BUILD_SAN)/tests/compose_capture $(BUILD_SAN)/generated >/dev/null
	@python3 tests/fuzz/make_corpus.py --out $(BUILD_SAN)/fuzz-corpus --inputs $(BUILD_SAN)/generated >/dev/null
	@for t in $(BUILD_SAN)/tests/fuzz/fuzz_*; do \
	  n=$$(basename $$t); FUZZ_KEEP=$(abspath $(BUILD_SAN))/fuzz-kept \
	  bash tests/fuzz/run_fuzz.sh $$t $(BUILD_SAN)/fuzz-corpus/$${n#fuzz_} $(FUZZ_SECONDS) || exit 1; \
	done

# dist/gpudoctor-<version>-linux-{x86_64,aarch64}.tar.gz and dist/SHA256SUMS, reproducibly from
# the commit checked out (toolchain/release.sh, toolchain/package_release.sh).
DIST ?= dist
release: build aarch64
	@bash toolchain/release.sh $(DIST) $(BUILD)/gpudoctor $(BUILD_AARCH64)/gpudoctor

lint-rules: build
	@$(BUILD)/rulec --check-only rules

bench: build
	@bash bench/run.sh $(BUILD)/gpudoctor

clean:
	rm -rf $(BUILD) $(BUILD_AARCH64) $(BUILD_SAN) $(BUILD_TSAN)
