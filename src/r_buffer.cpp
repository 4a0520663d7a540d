// Bindings for creating buffers and reading them back into R.
#include <cpp11.hpp>

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

// The buffer, with the count of missing values stored as sentinels (with_na_count()).
[[cpp11::register]] SEXP ffi_buffer_from_vector(SEXP data, bool integer64, std::string dtype,
                                                cpp11::integers shape, std::string check,
                                                std::string device) {
  return pjrt::call_core([&] {
    const ndbuf::RVectorView view = view_of(data, integer64);
    const ndbuf::DType type = ndbuf::parse_dtype_or_throw(dtype);
    const ndbuf::Device target = ndbuf::resolve_device(device);
    const auto nbytes = static_cast<size_t>(view.length) * ndbuf::itemsize(type);
    // The vector can only be aliased on the host; for a GPU the core uploads from it.
    const ndbuf::Device host = ndbuf::is_host(target) ? target : ndbuf::Device{};
    ndbuf::BufferFromR made =
        ndbuf::buffer_from_r(view, type, pjrt::shape_from_r(shape), check_of(check), target,
                             alias_of(data, host, nbytes));
    return pjrt::with_na_count(pjrt::wrap_buffer(std::move(made.tensor)), made.missing_stored);
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
