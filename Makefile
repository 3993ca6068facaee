# engram: the two commands a fresh Debian 12 machine needs are `make demo`
# and `make test`. Both install what is missing first.
JOBS ?= $(shell nproc)
BUILD_DIR ?= build
TEST_DIR ?= build-test
TSAN_DIR ?= build-tsan
FUZZ_DIR ?= build-fuzz
# Seconds each fuzz target runs in `make test` and in `make fuzz`.
FUZZ_SECONDS_TEST ?= 10
FUZZ_SECONDS ?= 300

.PHONY: all setup build demo test install package fuzz fuzz-build lint-format format bench load results clean

all: build

setup:
	@scripts/setup.sh
	@scripts/fetch_model.sh >/dev/null
	@scripts/setup_node_tests.sh >/dev/null

# Release build; the CLI lands at ./build/engram, and the embedded model is
# converted into $ENGRAM_HOME/models (default ~/.local/share/engram/models).
build: setup
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DENGRAM_BUILD_TESTS=OFF >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target engram use_lite_convert
	@scripts/install_model.sh ./$(BUILD_DIR)/use_lite_convert

# The library, headers, CLI, model, manual page, CMake and pkg-config files
# under PREFIX (default /usr/local), from the release build.
PREFIX ?= /usr/local
install: build
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target libengram use_lite_test_model
	@cmake --install $(BUILD_DIR) --prefix $(PREFIX) --strip
	@if [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

# The same as a Debian package, build/engram_<version>_<arch>.deb.
package: build
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target libengram use_lite_test_model
	@cd $(BUILD_DIR) && cpack

# Loads examples/memory.jsonl into a temporary store and runs searches.
demo: build
	@scripts/demo.sh ./$(BUILD_DIR)/engram

# Every test, warnings as errors, under AddressSanitizer and UBSan, after
# the format and lint checks; then every test that starts threads again
# under ThreadSanitizer (scripts/tsan.sh); then every fuzz target over its
# kept inputs and for FUZZ_SECONDS_TEST seconds. Debian's Chromium is
# installed for the memory browser's test (tests/node/browser_session.mjs).
test: setup lint-format
	@scripts/setup.sh chromium
	@cmake -S . -B $(TEST_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DENGRAM_WERROR=ON \
	  -DENGRAM_SANITIZE=ON -DENGRAM_BUILD_TESTS=ON >/dev/null
	@cmake --build $(TEST_DIR) -j $(JOBS)
	@scripts/tidy.sh $(TEST_DIR)
	@cd $(TEST_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest -j $(JOBS) --output-on-failure
	@cmake -S . -B $(TSAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DENGRAM_WERROR=ON \
	  -DENGRAM_SANITIZE_THREAD=ON -DENGRAM_BUILD_TESTS=ON >/dev/null
	@scripts/tsan.sh $(TSAN_DIR) $(JOBS)
	@$(MAKE) --no-print-directory fuzz-build
	@scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS_TEST)

# The libFuzzer targets of fuzz/, built with clang under ASan and UBSan.
fuzz-build: setup
	@cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DENGRAM_WERROR=ON \
	  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DENGRAM_FUZZ=ON \
	  -DENGRAM_BUILD_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_targets

# Longer fuzzing (FUZZ_SECONDS per target), keeping what it finds in
# .cache/fuzz so the next run starts from there.
fuzz: fuzz-build
	@mkdir -p .cache/fuzz
	@scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) .cache/fuzz

lint-format:
	@scripts/check_format.sh

format:
	@scripts/check_format.sh --fix

# Speed: whole-process import and search (needs ../shared/datasets) and the
# embedded model. bench/vector_search.sh (against FAISS and hnswlib, built
# here), bench/cosine_distribution.sh and bench/hnsw_live.sh take longer and
# run on their own.
bench: build
	@scripts/setup.sh libfaiss-dev
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target embed_speed vector_search cosine_distribution hnsw_live peer_tool
	@bench/cli_speed.sh ./$(BUILD_DIR)/engram
	@bench/embed_speed.sh ./$(BUILD_DIR) "$${ENGRAM_HOME:-$${XDG_DATA_HOME:-$$HOME/.local/share}/engram}/models/use-lite-en.bin"

# `engram serve` under 50 clients: 10,000 searches and 1,000 adds on a
# 10,000-fact store with the local model, at 30 and at 35 requests/s, then
# unpaced (needs ../shared/datasets); writes bench/RESULTS-load.md.
load: build
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target load_client
	@bench/load_test.sh ./$(BUILD_DIR)

results: build
	@scripts/setup.sh gnuplot-nox
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target embed_speed load_client peer_tool
	@scripts/results.sh ./$(BUILD_DIR)/engram

clean:
	rm -rf $(BUILD_DIR) $(TEST_DIR) $(TSAN_DIR) $(FUZZ_DIR)
