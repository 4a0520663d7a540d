// BLAS thread setters found with dlsym in the already-loaded BLAS (the object that defines
// sgemm_, found through dladdr), falling back to the process's global symbols.
#include "program/kernels/blas_threads.hpp"

#include <dlfcn.h>

#include <cstdint>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/fortran_blas.hpp"

namespace ndbuf::program {
namespace {

// One BLAS's setter and getter names; BLIS counts in its dim_t (int64_t in every build).
struct ThreadApi {
  const char* library;
  const char* setter;
  const char* getter;
  bool wide;
};

constexpr ThreadApi kThreadApis[] = {
    {"openblas", "openblas_set_num_threads", "openblas_get_num_threads", false},
    {"mkl", "MKL_Set_Num_Threads", "MKL_Get_Max_Threads", false},
    {"blis", "bli_thread_set_num_threads", "bli_thread_get_num_threads", true},
};

struct FoundApi {
  const ThreadApi* api = nullptr;
  void* setter = nullptr;
  void* getter = nullptr;
};

void* find_symbol(void* handle, const char* name) {
  void* symbol = handle != nullptr ? dlsym(handle, name) : nullptr;
  return symbol != nullptr ? symbol : dlsym(RTLD_DEFAULT, name);
}

FoundApi find_api() {
  FoundApi found;
  Dl_info info{};
  void* handle = nullptr;
  // The object holding sgemm_ and its dependencies (OpenBLAS's libblas.so.3 wraps
  // libopenblas.so.0): RTLD_NOLOAD only opens what is loaded already.
  if (dladdr(reinterpret_cast<void*>(&sgemm_), &info) != 0 && info.dli_fname != nullptr) {
    handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }
  for (const ThreadApi& api : kThreadApis) {
    void* setter = find_symbol(handle, api.setter);
    if (setter == nullptr) continue;
    found.api = &api;
    found.setter = setter;
    found.getter = find_symbol(handle, api.getter);
    break;
  }
  if (handle != nullptr) dlclose(handle);
  return found;
}

const FoundApi& thread_api() {
  static const FoundApi found = find_api();
  return found;
}

// Per thread: OpenBLAS's OpenMP build keeps the count in the calling thread's OpenMP settings,
// so a count set on R's thread says nothing of a device worker's.
thread_local int t_last_set = 0;

}  // namespace

const char* blas_thread_library() {
  const FoundApi& found = thread_api();
  return found.api != nullptr ? found.api->library : "";
}

int set_blas_threads(int threads) {
  const FoundApi& found = thread_api();
  if (found.setter == nullptr || threads < 1) return 0;
  if (t_last_set == threads) return threads;
  if (found.api->wide) {
    reinterpret_cast<void (*)(int64_t)>(found.setter)(threads);
  } else {
    reinterpret_cast<void (*)(int)>(found.setter)(threads);
  }
  t_last_set = threads;
  return threads;
}

int blas_threads() {
  const FoundApi& found = thread_api();
  if (found.getter == nullptr) return 0;
  if (found.api->wide) return static_cast<int>(reinterpret_cast<int64_t (*)()>(found.getter)());
  return reinterpret_cast<int (*)()>(found.getter)();
}

void sync_blas_threads() {
  if (in_forked_child()) return;
  set_blas_threads(max_threads());
}

int sync_blas_threads_for_product() {
  if (in_forked_child()) return 0;
  // One thread needs no look at the clock (the back-off's window).
  const int threads = max_threads();
  return set_blas_threads(threads > 1 && parallel_contended() ? 1 : threads);
}

}  // namespace ndbuf::program
