// Read-only ALTREP vectors over a buffer's host memory: as_array() of f64 / i32 without a copy.
#include "r_altrep.h"

#include <R_ext/Altrep.h>

#include <cstring>
#include <memory>

#include "ndbuf/memory/huge_pages.hpp"

namespace pjrt {
namespace {

// What a view holds: the storage (so the memory outlives the PJRTBuffer it came from), the
// first element and the length. data1 of the ALTREP object is an external pointer to it.
struct ViewedMemory {
  std::shared_ptr<ndbuf::Storage> storage;
  const void* data;
  R_xlen_t length;
};

R_altrep_class_t g_double_view;
R_altrep_class_t g_integer_view;

void release_viewed(SEXP pointer) {
  delete static_cast<ViewedMemory*>(R_ExternalPtrAddr(pointer));
  R_ClearExternalPtr(pointer);
}

ViewedMemory* viewed(SEXP x) {
  return static_cast<ViewedMemory*>(R_ExternalPtrAddr(R_altrep_data1(x)));
}

// The private copy made on the first request for writable memory, or R_NilValue.
SEXP copy_of(SEXP x) { return R_altrep_data2(x); }

size_t element_size(SEXP x) { return TYPEOF(x) == REALSXP ? sizeof(double) : sizeof(int); }

// Plain R code runs here (no C++ object lives on this frame), so an allocation error may
// longjmp. Once copied, the view lets go of the buffer's memory: every later access reads
// the copy.
SEXP materialise(SEXP x) {
  SEXP copy = copy_of(x);
  if (copy != R_NilValue) return copy;
  ViewedMemory* memory = viewed(x);
  copy = PROTECT(Rf_allocVector(TYPEOF(x), memory->length));
  if (memory->length > 0) {
    void* target =
        TYPEOF(x) == REALSXP ? static_cast<void*>(REAL(copy)) : static_cast<void*>(INTEGER(copy));
    const size_t nbytes = static_cast<size_t>(memory->length) * element_size(x);
    ndbuf::advise_huge_pages(target, nbytes);
    std::memcpy(target, memory->data, nbytes);
  }
  R_set_altrep_data2(x, copy);
  memory->storage.reset();
  memory->data = nullptr;
  UNPROTECT(1);
  return copy;
}

R_xlen_t view_length(SEXP x) { return viewed(x)->length; }

const void* readable(SEXP x) {
  const SEXP copy = copy_of(x);
  if (copy == R_NilValue) return viewed(x)->data;
  return TYPEOF(x) == REALSXP ? static_cast<const void*>(REAL_RO(copy))
                              : static_cast<const void*>(INTEGER_RO(copy));
}

void* view_dataptr(SEXP x, Rboolean writeable) {
  if (!writeable) return const_cast<void*>(readable(x));
  const SEXP copy = materialise(x);
  return TYPEOF(x) == REALSXP ? static_cast<void*>(REAL(copy)) : static_cast<void*>(INTEGER(copy));
}

const void* view_dataptr_or_null(SEXP x) { return readable(x); }

// A duplicate is an ordinary vector (R copies the attributes onto it).
SEXP view_duplicate(SEXP x, Rboolean /*deep*/) {
  const R_xlen_t length = view_length(x);
  SEXP out = PROTECT(Rf_allocVector(TYPEOF(x), length));
  if (length > 0) {
    void* target =
        TYPEOF(x) == REALSXP ? static_cast<void*>(REAL(out)) : static_cast<void*>(INTEGER(out));
    const size_t nbytes = static_cast<size_t>(length) * element_size(x);
    ndbuf::advise_huge_pages(target, nbytes);
    std::memcpy(target, readable(x), nbytes);
  }
  UNPROTECT(1);
  return out;
}

// NULL: serialize() writes the values as an ordinary vector, so saveRDS() files never need
// this package to be read.
SEXP view_serialized_state(SEXP /*x*/) { return nullptr; }

Rboolean view_inspect(SEXP x, int /*pre*/, int /*deep*/, int /*pvec*/,
                      void (* /*inspect_subtree*/)(SEXP, int, int, int)) {
  Rprintf(" pjrt buffer view (%s)\n", copy_of(x) == R_NilValue ? "shared" : "copied");
  return TRUE;
}

double double_elt(SEXP x, R_xlen_t i) { return static_cast<const double*>(readable(x))[i]; }
int integer_elt(SEXP x, R_xlen_t i) { return static_cast<const int*>(readable(x))[i]; }

template <typename T>
R_xlen_t get_region(SEXP x, R_xlen_t start, R_xlen_t size, T* out) {
  const R_xlen_t length = view_length(x);
  if (start >= length) return 0;
  const R_xlen_t count = size < length - start ? size : length - start;
  std::memcpy(out, static_cast<const T*>(readable(x)) + start,
              static_cast<size_t>(count) * sizeof(T));
  return count;
}

R_xlen_t double_region(SEXP x, R_xlen_t start, R_xlen_t size, double* out) {
  return get_region(x, start, size, out);
}
R_xlen_t integer_region(SEXP x, R_xlen_t start, R_xlen_t size, int* out) {
  return get_region(x, start, size, out);
}

void set_common_methods(R_altrep_class_t cls) {
  R_set_altrep_Length_method(cls, view_length);
  R_set_altrep_Duplicate_method(cls, view_duplicate);
  R_set_altrep_Serialized_state_method(cls, view_serialized_state);
  R_set_altrep_Inspect_method(cls, view_inspect);
  R_set_altvec_Dataptr_method(cls, view_dataptr);
  R_set_altvec_Dataptr_or_null_method(cls, view_dataptr_or_null);
}

}  // namespace

void register_altrep_classes(DllInfo* dll) {
  g_double_view = R_make_altreal_class("pjrt_double_view", "pjrt", dll);
  set_common_methods(g_double_view);
  R_set_altreal_Elt_method(g_double_view, double_elt);
  R_set_altreal_Get_region_method(g_double_view, double_region);
  g_integer_view = R_make_altinteger_class("pjrt_integer_view", "pjrt", dll);
  set_common_methods(g_integer_view);
  R_set_altinteger_Elt_method(g_integer_view, integer_elt);
  R_set_altinteger_Get_region_method(g_integer_view, integer_region);
}

bool can_view(const ndbuf::Tensor& tensor) {
  const ndbuf::DType dtype = tensor.dtype();
  if (dtype != ndbuf::DType::kF64 && dtype != ndbuf::DType::kI32) return false;
  if (!ndbuf::is_host(tensor.device()) || tensor.numel() == 0) return false;
  if (!tensor.is_contiguous(ndbuf::Order::kColumnMajor)) return false;
  // A mapped file can change underneath; its values are copied under the read check.
  return !ndbuf::lies_in_mapped_file(tensor.storage()->data());
}

SEXP view_vector(const ndbuf::Tensor& tensor) {
  const SEXPTYPE type = tensor.dtype() == ndbuf::DType::kF64 ? REALSXP : INTSXP;
  auto memory = std::make_unique<ViewedMemory>(
      ViewedMemory{tensor.storage(), tensor.data(), static_cast<R_xlen_t>(tensor.numel())});
  const cpp11::sexp pointer = cpp11::safe[R_MakeExternalPtr](memory.get(), R_NilValue, R_NilValue);
  cpp11::safe[R_RegisterCFinalizerEx](pointer, release_viewed, FALSE);
  memory.release();
  const R_altrep_class_t cls = type == REALSXP ? g_double_view : g_integer_view;
  return cpp11::safe[R_new_altrep](cls, pointer, R_NilValue);
}

bool is_view(SEXP x) {
  return R_altrep_inherits(x, g_double_view) || R_altrep_inherits(x, g_integer_view);
}

}  // namespace pjrt

[[cpp11::init]] void pjrt_register_altrep_classes(DllInfo* dll) {
  pjrt::register_altrep_classes(dll);
}

// "shared" for a view still reading the buffer's memory, "copied" once it made its own copy,
// "" for any other R value. Used by the tests to see that no copy happened.
[[cpp11::register]] std::string ffi_altrep_state(SEXP x) {
  if (!pjrt::is_view(x)) return "";
  return R_altrep_data2(x) == R_NilValue ? "shared" : "copied";
}

// Drops the attribute `name` of a vector this package just returned, in place: R's own
// `attr<-` would duplicate it (a copy of a view) because the calls that carried it still
// count as references. Never used on a vector the user could already hold.
[[cpp11::register]] SEXP ffi_vector_drop_attribute(SEXP x, std::string name) {
  cpp11::safe[Rf_setAttrib](x, cpp11::safe[Rf_install](name.c_str()), R_NilValue);
  return x;
}
