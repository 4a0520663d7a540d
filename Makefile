# The README's two commands are `make demo` (set-up + demo) and `make test` (all tests).
SHELL := /bin/bash
ROOT := $(abspath .)
BUILD := $(ROOT)/build
CORE := $(ROOT)/src/core
JOBS ?= 2
export PJRT_FIXTURES_DIR ?= $(abspath $(ROOT)/../shared/fixtures)
RSCRIPT := Rscript --vanilla
FUZZ_SECONDS ?= 30

.PHONY: setup deps install demo test test-core test-r test-r-fake-cuda gpu-check check site bench san san-core valgrind fuzz fuzz-corpus format lint clean

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

$(BUILD)/core/Makefile: $(CORE)/CMakeLists.txt
	cmake -S $(CORE) -B $(BUILD)/core -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

test-core: $(BUILD)/core/Makefile
	cmake --build $(BUILD)/core -j$(JOBS)
	cd $(BUILD)/core && ctest --output-on-failure -j$(JOBS)

test-r:
	NOT_CRAN=true $(RSCRIPT) -e 'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", stop_on_failure = TRUE)'

# The CUDA code path in R, against the fake driver library the core's test build makes.
test-r-fake-cuda: $(BUILD)/core/Makefile
	cmake --build $(BUILD)/core -j$(JOBS) --target ndbuf_fake_cuda
	PJRT_CUDA_DRIVER_PATH=$(BUILD)/core/libndbuf_fake_cuda.so NDBUF_FAKE_CUDA_MEMORY_MB=64 NOT_CRAN=true \
	  $(RSCRIPT) -e 'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", filter = "device|client|plugin", stop_on_failure = TRUE)'

# On a machine with an NVIDIA GPU: every CUDA test against the real driver.
gpu-check:
	bash tools/gpu-check.sh

check:
	rm -rf $(BUILD)/check && mkdir -p $(BUILD)/check
	cd $(BUILD)/check && R CMD build --no-build-vignettes $(ROOT) && _R_CHECK_FORCE_SUGGESTS_=false R CMD check --no-manual --ignore-vignettes pjrt_*.tar.gz

# The pkgdown site (reference, vignette, news) in build/site, built offline from the installed
# package (`make site` checks that every example and the vignette run).
site: install
	rm -rf $(BUILD)/site
	$(RSCRIPT) -e 'options(pkgdown.internet = FALSE); pkgdown::build_site(install = FALSE, new_process = FALSE, preview = FALSE)'

bench: setup
	cmake -S $(CORE) -B $(BUILD)/bench -DCMAKE_BUILD_TYPE=Release -DNDBUF_BENCH=ON -DNDBUF_TESTS=OFF >/dev/null
	cmake --build $(BUILD)/bench -j$(JOBS)
	$(BUILD)/bench/dot_general_bench
	for f in bench/*.R; do $(RSCRIPT) $$f || exit 1; done

# The core's GoogleTest suite under ASan + UBSan, then the R tests under valgrind.
san: san-core valgrind

san-core:
	cmake -S $(CORE) -B $(BUILD)/san -DCMAKE_BUILD_TYPE=Debug -DNDBUF_SANITIZE=ON >/dev/null
	cmake --build $(BUILD)/san -j$(JOBS)
	cd $(BUILD)/san && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS)

# The R test suite under valgrind's memcheck (about 22 minutes: R runs ~25x slower; tests
# marked skip_under_valgrind() leave their sweeps, gctorture() and repetitions to the ordinary
# runs). A memory error, a definite leak or a failed expectation fails it. VALGRIND_TESTS, a
# regular expression over test file names, picks a subset.
VALGRIND_TESTS ?= .
VALGRIND := valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
  --show-leak-kinds=definite --error-exitcode=1 --suppressions=$(ROOT)/tools/valgrind.supp
valgrind:
	PJRT_VALGRIND=true NOT_CRAN=true R -d "$(VALGRIND)" --vanilla --slave -e \
	  'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", filter = "$(VALGRIND_TESTS)", stop_on_failure = TRUE)'

# libFuzzer targets (clang; library and targets under ASan + UBSan), each run for FUZZ_SECONDS
# from its seed corpus src/core/fuzz/corpus/<name without _fuzz> (small files, in git). New
# inputs go to build/fuzz-work/<target>/, a crashing input to build/fuzz-work/<target>-crash-*;
# an input that runs over 10 s counts as a hang.
fuzz:
	CXX=clang++ cmake -S $(CORE) -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNDBUF_FUZZ=ON -DNDBUF_TESTS=OFF >/dev/null
	cmake --build $(BUILD)/fuzz -j$(JOBS)
	@for src in $(CORE)/fuzz/*_fuzz.cpp; do \
	  name=$$(basename $$src .cpp); corpus=$(CORE)/fuzz/corpus/$${name%_fuzz}; \
	  work=$(BUILD)/fuzz-work/$$name; mkdir -p $$work; [ -d $$corpus ] || corpus=; \
	  echo "== $$name for $(FUZZ_SECONDS)s"; \
	  dict=$(CORE)/fuzz/$${name%_fuzz}.dict; [ -f $$dict ] && dictarg=-dict=$$dict || dictarg=; \
	  $(BUILD)/fuzz/$$name -max_total_time=$(FUZZ_SECONDS) -timeout=10 -max_len=4096 \
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
	  $(BUILD)/fuzz/$$name -merge=1 $$corpus $$work 2>&1 | grep -e '^MERGE-OUTER: [0-9]* new files' ; \
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

clean:
	rm -rf $(BUILD) src/*.so
	find src -name "*.o" -delete
