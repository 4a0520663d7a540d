// The binding kit's non-template half: type checks, shapes, counts and error kinds.
#include "r_object.h"

#include <string>

namespace pjrt {
namespace {

// The kind of the last core error a binding raised, "" when none; read once by the R layer.
std::string g_error_kind;

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

void note_error_kind(ndbuf::ErrorKind kind) { g_error_kind = error_kind_name(kind); }

void forget_error_kind() { g_error_kind.clear(); }

}  // namespace pjrt

// The kind of the last core error ("argument", "index", ..., "interrupted"), or "" when the
// last error did not come from the core; forgotten once read.
[[cpp11::register]] std::string ffi_take_error_kind() {
  std::string kind;
  kind.swap(pjrt::g_error_kind);
  return kind;
}
