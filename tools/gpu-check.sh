#!/usr/bin/env bash
# Builds and runs everything CUDA-related in one go, on a machine with an NVIDIA GPU and its
# driver (no CUDA toolkit needed):
#   1. the core's CUDA tests against the real driver, with PJRT_TEST_REQUIRE_CUDA=1 so that a
#      missing driver or GPU (or too little memory for the 4 GiB test) fails instead of
#      skipping: every dtype through GPU memory, copies between GPUs, strided views, a buffer
#      larger than 4 GiB, out-of-memory with one reclaim and retry;
#   2. the same tests against the fake driver, and the core's driver-loading tests;
#   3. the R package's CUDA and device tests, installed into a private library, against the
#      real driver (also with PJRT_TEST_REQUIRE_CUDA=1) and then against the fake driver.
# Needs cmake, a C++17 compiler and GoogleTest for the core, and R with the package's
# dependencies (make deps) for the R part; --core-only skips the R part.
# Usage: tools/gpu-check.sh [--core-only] [build-dir]     (default build-dir: build/gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

core_only=0
if [[ "${1:-}" == "--core-only" ]]; then
  core_only=1
  shift
fi
build=${1:-$root/build/gpu}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$build"

echo "== GPUs"
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv || true
else
  echo "nvidia-smi not found; the tests below report whether the driver loads"
fi

echo "== core: build"
cmake -S src/core -B "$build/core" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build/core" -j"$jobs" \
  --target ndbuf_tests ndbuf_cuda_tests ndbuf_cuda_fake_tests ndbuf_fake_cuda

echo "== core: CUDA tests on the real driver"
PJRT_TEST_REQUIRE_CUDA=1 "$build/core/ndbuf_cuda_tests"

echo "== core: CUDA tests on the fake driver"
"$build/core/ndbuf_cuda_fake_tests"

echo "== core: driver loading and CPU device tests"
"$build/core/ndbuf_tests" --gtest_filter='CudaDriverLoading.*:CpuDevicesTest.*:FormatBytes.*'

if [[ $core_only == 1 ]]; then
  echo "gpu-check: core passed (R part skipped)"
  exit 0
fi

echo "== R: install into $build/R-lib"
mkdir -p "$build/R-lib"
if ! R CMD INSTALL --preclean --no-multiarch --library="$build/R-lib" . >"$build/R-install.log" 2>&1; then
  cat "$build/R-install.log"
  exit 1
fi
rm -f src/*.so; find src -name "*.o" -delete

run_r_tests() {
  R_LIBS="$build/R-lib${R_LIBS:+:$R_LIBS}" Rscript --vanilla -e \
    'testthat::test_dir("tests/testthat", package = "pjrt", load_package = "installed", filter = "device", stop_on_failure = TRUE)'
}

echo "== R: device tests on the real driver"
PJRT_TEST_REQUIRE_CUDA=1 run_r_tests

echo "== R: device tests on the fake driver"
PJRT_CUDA_DRIVER_PATH="$build/core/libndbuf_fake_cuda.so" NDBUF_FAKE_CUDA_MEMORY_MB=64 \
  PJRT_TEST_REQUIRE_CUDA=1 run_r_tests

echo "gpu-check: all CUDA checks passed"
