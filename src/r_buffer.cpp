// Bindings for creating buffers and reading them back into R.
#include <climits>
#include <cpp11.hpp>
#include <optional>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "r_tensor.h"

namespace {

ndbuf::RVectorView view_of(SEXP data, bool integer64) {
  const int64_t length = Rf_xlength(data);
  const void* ptr = cpp11::safe[DATAPTR_RO](data);
  switch (TYPEOF(data)) {
    case LGLSXP:
      return {ndbuf::RVectorType::kLogical, ptr, length};
    case INTSXP:
      return {ndbuf::RVectorType::kInteger, ptr, length};
    case REALSXP:
      return {integer64 ? ndbuf::RVectorType::kInteger64 : ndbuf::RVectorType::kDouble, ptr,
              length};
    case CPLXSXP:
      return {ndbuf::RVectorType::kComplex, ptr, length};
    default:
      pjrt::fail_argument("Data must be a logical, integer, double or complex vector.");
  }
}

ndbuf::MissingCheck check_of(const std::string& check) {
  if (check == "error") return ndbuf::MissingCheck::kError;
  if (check == "ignore") return ndbuf::MissingCheck::kIgnore;
  return ndbuf::MissingCheck::kWarn;
}

// Storage over the R vector's own bytes; the vector is marked not mutable, so R copies it
// before any later modification, and it stays alive while any buffer uses it.
ndbuf::AliasStorage alias_of(SEXP data, ndbuf::Device device, size_t nbytes) {
  return [data, device, nbytes]() {
    MARK_NOT_MUTABLE(data);
    // Read-only storage (the last argument below): the core never writes through it.
    void* ptr = const_cast<void*>(cpp11::safe[DATAPTR_RO](data));
    auto keep = std::make_unique<cpp11::sexp>(data);
    cpp11::sexp* held = keep.get();
    auto storage = std::make_shared<ndbuf::Storage>(
        ptr, nbytes, device, [held](void*) { delete held; }, true);
    keep.release();
    return storage;
  };
}

}  // namespace

namespace pjrt {

ndbuf::BufferFromR buffer_from_vector(SEXP data, bool integer64, ndbuf::DType type,
                                      const ndbuf::Shape& shape, ndbuf::MissingCheck check,
                                      const ndbuf::Device& target) {
  const ndbuf::RVectorView view = view_of(data, integer64);
  const auto nbytes = static_cast<size_t>(view.length) * ndbuf::itemsize(type);
  // The vector can only be aliased on the host; for a GPU the core uploads from it.
  const ndbuf::Device host = ndbuf::is_host(target) ? target : ndbuf::Device{};
  return ndbuf::buffer_from_r(view, type, shape, check, target, alias_of(data, host, nbytes));
}

bool default_shape_of(SEXP data, ndbuf::Shape* shape) {
  const SEXP dims = Rf_getAttrib(data, R_DimSymbol);
  if (TYPEOF(dims) == INTSXP) {
    *shape = shape_from_r(dims);
    return true;
  }
  const R_xlen_t length = Rf_xlength(data);
  if (dims != R_NilValue || length > INT_MAX) return false;
  *shape = ndbuf::Shape{static_cast<int64_t>(length)};
  return true;
}

}  // namespace pjrt

// The buffer, with the count of missing values stored as sentinels (with_na_count()).
[[cpp11::register]] SEXP ffi_buffer_from_vector(SEXP data, bool integer64, std::string dtype,
                                                cpp11::integers shape, std::string check,
                                                std::string device) {
  return pjrt::call_core([&] {
    ndbuf::BufferFromR made = pjrt::buffer_from_vector(
        data, integer64, ndbuf::parse_dtype_or_throw(dtype), pjrt::shape_from_r(shape),
        check_of(check), ndbuf::resolve_device(device));
    return pjrt::with_na_count(pjrt::wrap_buffer(std::move(made.tensor)), made.missing_stored);
  });
}

namespace {

// The dtype pjrt_buffer() makes from `data` by default (pred, i32, f32, c64, i64), when `data`
// is a plain logical, integer, double, complex or integer64 vector (or array) without another
// class, whose method the user could have defined.
std::optional<ndbuf::DType> default_dtype_of(SEXP data, bool integer64) {
  if (OBJECT(data) && !integer64) return std::nullopt;
  switch (TYPEOF(data)) {
    case LGLSXP:
      return ndbuf::DType::kPred;
    case INTSXP:
      return ndbuf::DType::kI32;
    case REALSXP:
      return integer64 ? ndbuf::DType::kI64 : ndbuf::DType::kF32;
    case CPLXSXP:
      return ndbuf::DType::kC64;
    default:
      return std::nullopt;
  }
}

// The dtype `dtype` names: NULL for the default, else a dtype's canonical name.
std::optional<ndbuf::DType> named_dtype(SEXP dtype, std::optional<ndbuf::DType> fallback) {
  if (dtype == R_NilValue) return fallback;
  if (TYPEOF(dtype) != STRSXP || Rf_xlength(dtype) != 1 || OBJECT(dtype)) return std::nullopt;
  const char* name = CHAR(STRING_ELT(dtype, 0));
  const std::optional<ndbuf::DType> type = ndbuf::parse_dtype(name);
  if (!type || ndbuf::dtype_name(*type) != name) return std::nullopt;
  return type;
}

}  // namespace

// pjrt_buffer()'s common call, checked here instead of in R: a plain logical, integer,
// double, complex or integer64 vector, no dtype or one by its canonical name, no device, shape
// or further arguments (`dots`: their count), and missing values checked as "warn". The
// buffer; when missing values were stored as sentinels, a plain list of it (with its count,
// with_na_count()) for the R layer to warn. NULL for any other call, which the R layer then
// checks and words itself (nothing was made).
[[cpp11::register]] SEXP ffi_buffer_from_vector_common(SEXP data, SEXP dtype, SEXP device,
                                                       SEXP shape, SEXP dots) {
  return pjrt::call_core([&]() -> SEXP {
    if (device != R_NilValue || shape != R_NilValue || TYPEOF(dots) != INTSXP ||
        XLENGTH(dots) != 1 || INTEGER(dots)[0] != 0) {
      return R_NilValue;
    }
    const bool integer64 = OBJECT(data) && Rf_inherits(data, "integer64") &&
                           Rf_xlength(Rf_getAttrib(data, R_ClassSymbol)) == 1;
    const std::optional<ndbuf::DType> type = named_dtype(dtype, default_dtype_of(data, integer64));
    ndbuf::Shape dims;
    if (!type || !default_dtype_of(data, integer64) || !pjrt::default_shape_of(data, &dims)) {
      return R_NilValue;
    }
    ndbuf::BufferFromR made = pjrt::buffer_from_vector(
        data, integer64, *type, dims, ndbuf::MissingCheck::kWarn, ndbuf::resolve_device(""));
    const SEXP buffer = pjrt::wrap_buffer(std::move(made.tensor));
    if (made.missing_stored == 0) return buffer;
    const cpp11::sexp counted(pjrt::with_na_count(buffer, made.missing_stored));
    const cpp11::writable::list flagged({counted});
    return static_cast<SEXP>(flagged);
  });
}

[[cpp11::register]] SEXP ffi_buffer_from_raw(cpp11::raws data, std::string dtype,
                                             cpp11::integers shape, bool row_major,
                                             std::string device) {
  return pjrt::call_core([&] {
    const auto order = row_major ? ndbuf::Order::kRowMajor : ndbuf::Order::kColumnMajor;
    return pjrt::wrap_buffer(
        ndbuf::buffer_from_bytes(RAW(data), Rf_xlength(data), ndbuf::parse_dtype_or_throw(dtype),
                                 pjrt::shape_from_r(shape), order, ndbuf::resolve_device(device)));
  });
}

[[cpp11::register]] SEXP ffi_buffer_empty(std::string dtype, cpp11::integers shape,
                                          std::string device) {
  return pjrt::call_core([&] {
    return pjrt::wrap_buffer(ndbuf::buffer_empty(ndbuf::parse_dtype_or_throw(dtype),
                                                 pjrt::shape_from_r(shape),
                                                 ndbuf::resolve_device(device)));
  });
}

[[cpp11::register]] SEXP ffi_buffer_copy_to(SEXP buffer, std::string device) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    ndbuf::Tensor copy =
        ndbuf::buffer_copy_to(pjrt::unwrap_buffer(buffer), ndbuf::resolve_device(device));
    reads.done();
    return pjrt::wrap_buffer(std::move(copy));
  });
}
