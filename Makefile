# The README's two commands are `make demo` (set-up + demo) and `make test` (all tests).
SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
CORE := $(ROOT)/src/core
JOBS ?= 2
export PJRT_FIXTURES_DIR ?= $(abspath $(ROOT)/../shared/fixtures)
RSCRIPT := Rscript --vanilla
FUZZ_SECONDS ?= 30
# Where ccache is installed, every compiler runs through it (the R builds through
# tools/ccache-env.sh). Paths under the checkout are hashed relative to it and the working folder
# not at all, so another clone, or the tarball's temporary folder, hits the same cache.
CCACHE := $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR := $(ROOT)
export CCACHE_NOHASHDIR := true
CMAKE := cmake $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=$(CCACHE))

.PHONY: setup deps install demo test test-core test-r test-r-fake-cuda gpu-check check site bench san san-core instrumented valgrind fuzz fuzz-corpus format lint clean

setup: deps install

deps:
	bash tools/install-deps.sh

# Installs pjrt (clean objects, so no stale or debug-flag builds leak in) and harmonium, unless
# both are installed from exactly these sources already (tools/install.sh).
install:
	JOBS=$(JOBS) bash tools/install.sh

demo: setup
	$(RSCRIPT) tools/demo.R

test: setup test-core test-r test-r-fake-cuda

# The core's GoogleTest suite, in the one instrumented build (below): every core test runs under
# ASan + UBSan. The optimised library is what the R suite runs.
test-core: san-core

# The R suite runs its files on $(JOBS) processes (testthat's parallel mode).
test-r:
	NOT_CRAN=true TESTTHAT_PARALLEL=true TESTTHAT_CPUS=$(JOBS) $(RSCRIPT) -e 'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", stop_on_failure = TRUE)'

# The CUDA code path in R, against the fake driver library (host memory behind fake device
# addresses; one file, built here without sanitizers, since R loads it).
FAKE_CUDA := $(BUILD)/fake-cuda/libndbuf_fake_cuda.so
$(FAKE_CUDA): $(CORE)/tests/cuda/fake_cuda_driver.cpp
	mkdir -p $(dir $@)
	$(CCACHE) c++ -std=c++17 -O1 -shared -fPIC -o $@ $<

test-r-fake-cuda: $(FAKE_CUDA)
	PJRT_CUDA_DRIVER_PATH=$(FAKE_CUDA) NDBUF_FAKE_CUDA_MEMORY_MB=64 NOT_CRAN=true \
	  $(RSCRIPT) -e 'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", filter = "device|client|plugin", stop_on_failure = TRUE)'

# On a machine with an NVIDIA GPU: every CUDA test against the real driver.
gpu-check:
	bash tools/gpu-check.sh

# R CMD check of the source package `make install` built and installed, offline: --as-cran is
# left out (with it, R 4.2 reads CRAN's package list over the network whatever the environment
# says), and so is the PDF manual (no LaTeX here). Every NOTE it gives is to be listed, with its
# reason, in CONTRIBUTING.md.
check: install
	rm -rf $(BUILD)/check && mkdir -p $(BUILD)/check
	source tools/ccache-env.sh && cd $(BUILD)/check && \
	  _R_CHECK_CRAN_INCOMING_REMOTE_=false _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false _R_CHECK_ORPHANED_=false \
	  _R_CHECK_FORCE_SUGGESTS_=false MAKEFLAGS=-j$(JOBS) \
	  R CMD check --no-manual $$(ls $(BUILD)/pjrt_*.tar.gz)
	@! grep -E '^Status: .*(ERROR|WARNING)' $(BUILD)/check/pjrt.Rcheck/00check.log

# The pkgdown site (reference, vignette, news) in build/site, built offline from the installed
# package (`make site` checks that every example and the vignette run).
site: install
	rm -rf $(BUILD)/site
	$(RSCRIPT) -e 'options(pkgdown.internet = FALSE); pkgdown::build_site(install = FALSE, new_process = FALSE, preview = FALSE)'

bench: setup
	$(CMAKE) -S $(CORE) -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release -DNDBUF_BENCH=ON -DNDBUF_TESTS=OFF >/dev/null
	cmake --build $(BUILD)/bench -j$(JOBS)
	$(BUILD)/bench/dot_general_bench
	for f in bench/*.R; do $(RSCRIPT) $$f || exit 1; done

# The core's GoogleTest suite under ASan + UBSan, then the R bindings under valgrind.
san: san-core valgrind

# One build of the core serves its tests, the sanitizers and the fuzz targets: clang with OpenMP,
# assertions on, the library under ASan + UBSan with libFuzzer's coverage hooks (fuzzer-no-link),
# the tests linked with the sanitizers, the fuzz targets with libFuzzer too. -O0: clang compiles
# the element-wise kernels three times faster than at -O1 under the sanitizers (18 s against 63 s
# for the largest file), which outweighs the slower test run. The optimised build of the same
# sources is the R package's, which the R suite tests.
INSTRUMENTED := $(BUILD)/instrumented
$(INSTRUMENTED)/Makefile: $(CORE)/CMakeLists.txt
	CXX=clang++ $(CMAKE) -S $(CORE) -B $(INSTRUMENTED) -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g" -DNDBUF_SANITIZE=ON -DNDBUF_FUZZ=ON >/dev/null

instrumented: $(INSTRUMENTED)/Makefile
	cmake --build $(INSTRUMENTED) -j$(JOBS)

# Each test binary runs in $(JOBS) shards, each one process (tools/gtest-shards.sh).
san-core: instrumented
	@cd $(INSTRUMENTED) && for binary in ndbuf_tests ndbuf_cuda_fake_tests ndbuf_cuda_tests; do \
	  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    bash $(ROOT)/tools/gtest-shards.sh $(JOBS) ./$$binary || exit 1; \
	done

# The R bindings under valgrind's memcheck: the test files listed in tests/memcheck.txt, which
# between them call every src/r_*.cpp binding with small inputs (the file says which covers
# what); the ordinary run has the sweeps and repetitions. A memory error, a definite leak or a
# failed expectation fails it. VALGRIND_TESTS, a regular expression over test file names,
# picks other files instead.
MEMCHECK_TESTS := $(shell sed -e 's/\#.*//' -e 's/[[:space:]]*$$//' -e '/^$$/d' -e '/^!/d' $(ROOT)/tests/memcheck.txt | paste -sd '|')
VALGRIND_TESTS ?= ^($(MEMCHECK_TESTS))$$
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
  --show-leak-kinds=definite --error-exitcode=1 --suppressions=$(ROOT)/tools/valgrind.supp
valgrind:
	PJRT_VALGRIND=true NOT_CRAN=true R -d "$(VALGRIND)" --vanilla --slave -e \
	  'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", filter = "$(VALGRIND_TESTS)", stop_on_failure = TRUE)'

# libFuzzer targets (the instrumented build), each run for FUZZ_SECONDS from its seed corpus
# src/core/fuzz/corpus/<name without _fuzz> (small files, in git). New inputs go to
# build/fuzz-work/<target>/, a crashing input to build/fuzz-work/<target>-crash-*; an input that
# runs over 10 s counts as a hang.
fuzz: instrumented
	@for src in $(CORE)/fuzz/*_fuzz.cpp; do \
	  name=$$(basename $$src .cpp); corpus=$(CORE)/fuzz/corpus/$${name%_fuzz}; \
	  work=$(BUILD)/fuzz-work/$$name; mkdir -p $$work; [ -d $$corpus ] || corpus=; \
	  echo "== $$name for $(FUZZ_SECONDS)s"; \
	  dict=$(CORE)/fuzz/$${name%_fuzz}.dict; [ -f $$dict ] && dictarg=-dict=$$dict || dictarg=; \
	  $(INSTRUMENTED)/$$name -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=4096 \
	    -malloc_limit_mb=64 -rss_limit_mb=2048 -print_final_stats=1 $$dictarg \
	    -artifact_prefix=$$work- $$work $$corpus 2>&1 | grep -v -e '^#' -e '^INFO' -e NEW_FUNC -e '^"'; \
	  [ $${PIPESTATUS[0]} -eq 0 ] || exit 1; \
	done

# Folds what `make fuzz` found into the seed corpora: only inputs that add coverage (libFuzzer's
# merge), so the committed corpora stay small.
fuzz-corpus:
	@for src in $(CORE)/fuzz/*_fuzz.cpp; do \
	  name=$$(basename $$src .cpp); corpus=$(CORE)/fuzz/corpus/$${name%_fuzz}; \
	  work=$(BUILD)/fuzz-work/$$name; [ -d $$work ] || continue; mkdir -p $$corpus; \
	  $(INSTRUMENTED)/$$name -merge=1 $$corpus $$work 2>&1 | grep -e '^MERGE-OUTER: [0-9]* new files' ; \
	done

# Every C++ file of ours: the core (sources, headers, tests, fuzz targets, benchmarks, tools)
# and the bindings (cpp11.cpp is generated).
FORMATTED = $(shell find $(CORE) -name '*.cpp' -o -name '*.hpp' | grep -v /fuzz/corpus/) \
  $(filter-out src/cpp11.cpp,$(wildcard src/*.cpp)) $(wildcard src/*.h)
format:
	clang-format -i --style=file $(FORMATTED)

# The core's sources and public headers (not its tests, fuzz targets or tools), which the size
# rules cover: no file over 400 lines, no function over 60 (tools/check-size.py).
CORE_SOURCES = $(shell find $(addprefix $(CORE)/,base memory convert format harray io program include) \
  -name '*.cpp' -o -name '*.hpp')

# Fast checks that need no build: `make format` would change nothing and the size rules hold.
lint:
	@clang-format --dry-run -Werror --style=file $(FORMATTED) && echo "make format would change nothing"
	@python3 tools/check-size.py $(CORE_SOURCES) && echo "no core file over 400 lines, no function over 60"
	@python3 tools/check-layering.py && echo "no program folder includes one above it"

clean:
	rm -rf $(BUILD) src/*.so
	find src -name "*.o" -delete
