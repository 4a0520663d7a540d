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

[[cpp11::register]] cpp11::integers ffi_buffer_shape(SEXP buffer) {
  const ndbuf::Shape& shape = pjrt::unwrap_buffer(buffer).shape();
  cpp11::writable::integers out(static_cast<R_xlen_t>(shape.size()));
  for (size_t k = 0; k < shape.size(); ++k) out[k] = static_cast<int>(shape[k]);
  return out;
}

[[cpp11::register]] std::string ffi_buffer_dtype(SEXP buffer) {
  return std::string(ndbuf::dtype_name(pjrt::unwrap_buffer(buffer).dtype()));
}

[[cpp11::register]] std::string ffi_buffer_device(SEXP buffer) {
  return ndbuf::device_spec(pjrt::unwrap_buffer(buffer).device());
}

[[cpp11::register]] std::string ffi_buffer_address(SEXP buffer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pjrt::unwrap_buffer(buffer).data());
  return text;
}

// The values in R's column-major order; "integer64" class and dims are set here so that
// the (possibly huge) vector is never duplicated by an attribute change in R. Values R
// cannot tell from NA are counted in the attribute "pjrt_ambiguous" (absent when none).
[[cpp11::register]] SEXP ffi_buffer_to_r(SEXP buffer) {
  const pjrt::MappedReadCheck reads;
  const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
  const ndbuf::RVectorType type = ndbuf::r_vector_type_for(tensor.dtype());
  cpp11::sexp out = cpp11::safe[Rf_allocVector](sexptype_for(type), tensor.numel());
  const int64_t ambiguous =
      ndbuf::tensor_to_r(tensor, cpp11::safe[DATAPTR](out), ndbuf::Order::kColumnMajor);
  // Through cpp11::safe: an allocation error must not jump over C++ destructors.
  if (type == ndbuf::RVectorType::kInteger64) {
    cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString]("integer64"));
  }
  if (tensor.rank() > 0) cpp11::safe[Rf_setAttrib](out, R_DimSymbol, ffi_buffer_shape(buffer));
  if (ambiguous > 0) {
    cpp11::safe[Rf_setAttrib](out, cpp11::safe[Rf_install]("pjrt_ambiguous"),
                              cpp11::safe[Rf_ScalarReal](static_cast<double>(ambiguous)));
  }
  reads.done();
  return out;
}

[[cpp11::register]] cpp11::raws ffi_buffer_to_raw(SEXP buffer, bool row_major) {
  const pjrt::MappedReadCheck reads;
  const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
  cpp11::writable::raws out(static_cast<R_xlen_t>(tensor.nbytes()));
  ndbuf::copy_to_dense(tensor, RAW(out),
                       row_major ? ndbuf::Order::kRowMajor : ndbuf::Order::kColumnMajor);
  reads.done();
  return out;
}

[[cpp11::register]] cpp11::strings ffi_devices(std::string platform) {
  const std::vector<ndbuf::Device> devices = ndbuf::list_devices(
      platform.empty() ? ndbuf::default_platform() : ndbuf::parse_platform(platform));
  cpp11::writable::strings out(static_cast<R_xlen_t>(devices.size()));
  for (size_t k = 0; k < devices.size(); ++k) {
    out[k] = ndbuf::device_spec(devices[k]);
  }
  return out;
}

[[cpp11::register]] std::string ffi_device_resolve(std::string spec) {
  return ndbuf::device_spec(ndbuf::resolve_device(spec));
}
