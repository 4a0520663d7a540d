// Lookups as the BLAS thread setters are made (blas_threads.cpp): dlsym in the object that
// defines a double-precision routine we link, then in the process's global symbols.
#include "program/ops/linalg/lapack_single.hpp"

#include <dlfcn.h>

#include <atomic>

#include "program/ops/linalg/fortran_lapack.hpp"

namespace ndbuf::program {
namespace {

std::atomic<bool> g_enabled{true};

void* find_beside(void* known, const char* name) {
  Dl_info info{};
  void* handle = nullptr;
  if (dladdr(known, &info) != 0 && info.dli_fname != nullptr) {
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }
  void* symbol = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (handle != nullptr) dlclose(handle);
  return symbol != nullptr ? symbol : dlsym(RTLD_DEFAULT, name);
}

SinglePrecisionLapack find_routines() {
  SinglePrecisionLapack found;
  void* lapack = reinterpret_cast<void*>(&dpotrf_);
  void* blas = reinterpret_cast<void*>(&dtrsm_);
  found.spotrf = reinterpret_cast<SpotrfFn>(find_beside(lapack, "spotrf_"));
  found.cpotrf = reinterpret_cast<CpotrfFn>(find_beside(lapack, "cpotrf_"));
  found.strsm = reinterpret_cast<StrsmFn>(find_beside(blas, "strsm_"));
  found.ctrsm = reinterpret_cast<CtrsmFn>(find_beside(blas, "ctrsm_"));
  return found;
}

}  // namespace

const SinglePrecisionLapack& single_precision_lapack() {
  static const SinglePrecisionLapack found = find_routines();
  static const SinglePrecisionLapack none{};
  return g_enabled.load() ? found : none;
}

void use_single_precision_lapack(bool enabled) { g_enabled.store(enabled); }

}  // namespace ndbuf::program
