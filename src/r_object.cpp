// The binding kit's non-template half: type checks, shapes, counts and error kinds.
#include "r_object.h"

#include <R_ext/Rallocators.h>

#include <algorithm>
#include <string>

#include "ndbuf/memory/block_recycler.hpp"
#include "ndbuf/memory/huge_pages.hpp"
#include "r_memory.h"

namespace pjrt {
namespace {

size_t vector_item_bytes(SEXPTYPE type) {
  switch (type) {
    case RAWSXP:
      return 1;
    case REALSXP:
      return sizeof(double);
    case CPLXSXP:
      return sizeof(Rcomplex);
    default:
      return sizeof(int);  // logical and integer
  }
}

// Large output vectors take their memory from the core's block recycler through R's custom
// allocator interface, so that the pages of a collected result serve the next one. The block's
// capacity is kept in front of what R sees (64 bytes keep R's alignment).
constexpr size_t kRecycledHeaderBytes = 64;

// R leaves memory from custom allocators out of the heap size that triggers its collections,
// so dead results would pile up uncollected: their bytes are counted in result_memory(), which
// asks for a collection when they pass its budget (r_memory.h).
void* recycled_vector_alloc(R_allocator_t* /*allocator*/, size_t nbytes) {
  const ndbuf::LargeBlock block = ndbuf::acquire_large_block(nbytes + kRecycledHeaderBytes);
  if (block.data == nullptr) return nullptr;  // R reports it as an allocation error
  *static_cast<size_t*>(block.data) = block.capacity;
  result_memory().add(block.capacity);
  return static_cast<char*>(block.data) + kRecycledHeaderBytes;
}

void recycled_vector_free(R_allocator_t* /*allocator*/, void* data) {
  char* start = static_cast<char*>(data) - kRecycledHeaderBytes;
  const size_t capacity = *reinterpret_cast<size_t*>(start);
  result_memory().remove(capacity);
  ndbuf::release_large_block({start, capacity});
}

R_allocator_t g_recycled_vectors{&recycled_vector_alloc, &recycled_vector_free, nullptr, nullptr};

// The message and kind of the last failed binding; taken once by the R layer.
std::string g_failure_message;
std::string g_failure_kind;
// The symbol `pjrt_core_failure`, made when the package loads (making it in an exception
// handler could fail).
SEXP g_failure_marker = R_NilValue;

const char* error_kind_name(ndbuf::ErrorKind kind) {
  switch (kind) {
    case ndbuf::ErrorKind::kInvalidArgument:
      return "argument";
    case ndbuf::ErrorKind::kConversion:
      return "conversion";
    case ndbuf::ErrorKind::kIndex:
      return "index";
    case ndbuf::ErrorKind::kFormat:
      return "format";
    case ndbuf::ErrorKind::kIo:
      return "io";
    case ndbuf::ErrorKind::kDevice:
      return "device";
    case ndbuf::ErrorKind::kOutOfMemory:
      return "memory";
    case ndbuf::ErrorKind::kInterrupted:
      return "interrupted";
  }
  return "";
}

}  // namespace

void fail_argument(const char* message) {
  ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, message);
}

bool is_object(SEXP x, const ObjectClass& cls) {
  return TYPEOF(x) == EXTPTRSXP && Rf_inherits(x, cls.name) &&
         R_ExternalPtrTag(x) == Rf_install(cls.name);
}

bool has_mark(SEXP mark, const char* name) { return mark == Rf_install(name); }

ndbuf::Shape shape_from_r(SEXP dims) {
  const int* values = cpp11::safe[INTEGER_RO](dims);
  return ndbuf::Shape(values, values + Rf_xlength(dims));
}

cpp11::writable::integers shape_to_r(const ndbuf::Shape& shape) {
  cpp11::writable::integers out(static_cast<R_xlen_t>(shape.size()));
  int* values = INTEGER(out);
  for (size_t k = 0; k < shape.size(); ++k) values[k] = static_cast<int>(shape[k]);
  return out;
}

SEXP with_na_count(SEXP value, int64_t count) {
  if (count > 0) {
    const cpp11::sexp held(value);
    // Through cpp11::safe: an allocation error must not jump over C++ destructors.
    cpp11::safe[Rf_setAttrib](value, cpp11::safe[Rf_install]("pjrt_na_count"),
                              cpp11::safe[Rf_ScalarReal](static_cast<double>(count)));
  }
  return value;
}

void* vector_data(SEXP vector) {
  switch (TYPEOF(vector)) {
    case LGLSXP:
      return LOGICAL(vector);
    case INTSXP:
      return INTEGER(vector);
    case REALSXP:
      return REAL(vector);
    case CPLXSXP:
      return COMPLEX(vector);
    case RAWSXP:
      return RAW(vector);
    default:
      fail_argument("Expected a logical, integer, double, complex or raw vector.");
  }
}

SEXP allocate_output_vector(SEXPTYPE type, R_xlen_t length) {
  const size_t nbytes = static_cast<size_t>(length) * vector_item_bytes(type);
  if (nbytes >= ndbuf::kRecycleMinBytes) {
    result_memory().make_room(nbytes);
    return cpp11::safe[Rf_allocVector3](type, length, &g_recycled_vectors);
  }
  return allocate_heap_vector(type, length);
}

SEXP allocate_heap_vector(SEXPTYPE type, R_xlen_t length) {
  const SEXP out = cpp11::safe[Rf_allocVector](type, length);
  const size_t nbytes = static_cast<size_t>(length) * vector_item_bytes(type);
  if (length > 0) ndbuf::advise_huge_pages(vector_data(out), nbytes);
  return out;
}

SEXP core_failure(const char* message, const char* kind) {
  g_failure_message = message;
  g_failure_kind = kind;
  return g_failure_marker;
}

SEXP core_failure(const ndbuf::Error& error) {
  return core_failure(error.what(), error_kind_name(error.kind()));
}

}  // namespace pjrt

[[cpp11::init]] void pjrt_install_failure_marker(DllInfo* dll) {
  (void)dll;
  pjrt::g_failure_marker = Rf_install("pjrt_core_failure");
}

// The kind ("argument", "index", ..., "interrupted"; "" for an exception without one) and the
// message of the last failed binding, in the native encoding as R's own errors carry them;
// forgotten once read.
[[cpp11::register]] SEXP ffi_take_core_failure() {
  cpp11::sexp out = cpp11::safe[Rf_allocVector](STRSXP, 2);
  SET_STRING_ELT(out, 0, cpp11::safe[Rf_mkChar](pjrt::g_failure_kind.c_str()));
  SET_STRING_ELT(out, 1, cpp11::safe[Rf_mkChar](pjrt::g_failure_message.c_str()));
  pjrt::g_failure_kind.clear();
  pjrt::g_failure_message.clear();
  return out;
}

// Bytes of collected large result vectors kept for reuse, and of live ones (tests check that
// R hands them back, and that dead ones do not pile up).
[[cpp11::register]] SEXP ffi_recycled_bytes() {
  const SEXP out = cpp11::safe[Rf_allocVector](REALSXP, 2);
  REAL(out)[0] = static_cast<double>(ndbuf::recycled_bytes());
  REAL(out)[1] = static_cast<double>(pjrt::result_memory().live_bytes());
  return out;
}
