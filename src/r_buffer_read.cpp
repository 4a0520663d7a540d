// Bindings that read a buffer: its metadata, its values as R vectors, its bytes.
#include <cpp11.hpp>

#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "r_tensor.h"

namespace {

SEXPTYPE sexptype_for(ndbuf::RVectorType type) {
  switch (type) {
    case ndbuf::RVectorType::kLogical:
      return LGLSXP;
    case ndbuf::RVectorType::kInteger:
      return INTSXP;
    case ndbuf::RVectorType::kComplex:
      return CPLXSXP;
    case ndbuf::RVectorType::kDouble:
    case ndbuf::RVectorType::kInteger64:
      break;
  }
  return REALSXP;
}

}  // namespace

[[cpp11::register]] SEXP ffi_buffer_shape(SEXP buffer) {
  return pjrt::call_core([&] { return pjrt::shape_to_r(pjrt::unwrap_buffer(buffer).shape()); });
}

[[cpp11::register]] SEXP ffi_buffer_dtype(SEXP buffer) {
  return pjrt::call_core(
      [&] { return std::string(ndbuf::dtype_name(pjrt::unwrap_buffer(buffer).dtype())); });
}

[[cpp11::register]] SEXP ffi_buffer_device(SEXP buffer) {
  return pjrt::call_core([&] { return ndbuf::device_spec(pjrt::unwrap_buffer(buffer).device()); });
}

[[cpp11::register]] SEXP ffi_buffer_address(SEXP buffer) {
  return pjrt::call_core([&] {
    char text[32];
    std::snprintf(text, sizeof text, "%p", pjrt::unwrap_buffer(buffer).data());
    return std::string(text);
  });
}

// The values in R's column-major order; "integer64" class and dims are set here so that
// the (possibly huge) vector is never duplicated by an attribute change in R. Values R
// cannot tell from NA are counted as with_na_count() says.
[[cpp11::register]] SEXP ffi_buffer_to_r(SEXP buffer) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
    const ndbuf::RVectorType type = ndbuf::r_vector_type_for(tensor.dtype());
    cpp11::sexp out = cpp11::safe[Rf_allocVector](sexptype_for(type), tensor.numel());
    const int64_t ambiguous =
        ndbuf::tensor_to_r(tensor, pjrt::vector_data(out), ndbuf::Order::kColumnMajor);
    // Through cpp11::safe: an allocation error must not jump over C++ destructors.
    if (type == ndbuf::RVectorType::kInteger64) {
      cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString]("integer64"));
    }
    if (tensor.rank() > 0) {
      cpp11::safe[Rf_setAttrib](out, R_DimSymbol, pjrt::shape_to_r(tensor.shape()));
    }
    reads.done();
    return pjrt::with_na_count(out, ambiguous);
  });
}

[[cpp11::register]] SEXP ffi_buffer_to_raw(SEXP buffer, bool row_major) {
  return pjrt::call_core([&]() -> cpp11::raws {
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
    cpp11::writable::raws out(static_cast<R_xlen_t>(tensor.nbytes()));
    ndbuf::copy_to_dense(tensor, RAW(out),
                         row_major ? ndbuf::Order::kRowMajor : ndbuf::Order::kColumnMajor);
    reads.done();
    return out;
  });
}
