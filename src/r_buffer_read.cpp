// Bindings that read a buffer: its metadata, its values as R vectors, its bytes.
#include <cpp11.hpp>

#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "r_altrep.h"
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
  return pjrt::call_core([&] { return pjrt::shape_to_r(pjrt::buffer_metadata(buffer).shape()); });
}

[[cpp11::register]] SEXP ffi_buffer_dtype(SEXP buffer) {
  return pjrt::call_core(
      [&] { return std::string(ndbuf::dtype_name(pjrt::buffer_metadata(buffer).dtype())); });
}

namespace {

// The symbol naming `device` in R's cache of interned devices (its spec, "cpu:0"). The last
// device asked for keeps its symbol: device() is called once per op in generated code, nearly
// always for the same device, and Rf_install() hashes and compares the spec each time.
// Symbols are never collected, so one kept here stays valid.
SEXP device_symbol(const ndbuf::Device& device) {
  static ndbuf::Device last_device;
  static SEXP last_symbol = nullptr;
  if (last_symbol == nullptr || device != last_device) {
    last_symbol = cpp11::safe[Rf_install](ndbuf::device_spec(device).c_str());
    last_device = device;
  }
  return last_symbol;
}

}  // namespace

// The buffer's device as the R object `cache` (R's environment of interned devices, keyed by
// spec) holds for it, or its spec where the cache has none yet: device() then costs one call.
// NULL when `buffer` is not a PJRTBuffer (device() then dispatches on it). Looking a symbol up
// in a plain environment cannot raise an R error, so it needs no unwind protection.
[[cpp11::register]] SEXP ffi_buffer_device(SEXP buffer, SEXP cache) {
  if (!Rf_inherits(buffer, "PJRTBuffer") || TYPEOF(cache) != ENVSXP) return R_NilValue;
  return pjrt::call_core([&]() -> SEXP {
    const ndbuf::Device device = pjrt::buffer_metadata(buffer).device();
    const SEXP found = Rf_findVarInFrame3(cache, device_symbol(device), TRUE);
    return found == R_UnboundValue ? cpp11::as_sexp(ndbuf::device_spec(device)) : found;
  });
}

// Whether `buffer` is a PJRTBuffer on `device`, the interned device object `cache` holds for
// its spec: copy_buffer()'s answer for a buffer already there, in one call. FALSE for anything
// else, a failure included (copy_buffer() then checks its arguments the long way).
[[cpp11::register]] SEXP ffi_buffer_on_device(SEXP buffer, SEXP device, SEXP cache) {
  const bool on = TYPEOF(device) == ENVSXP && ffi_buffer_device(buffer, cache) == device;
  return Rf_ScalarLogical(on ? TRUE : FALSE);
}

// Waits for a buffer's value (a pending result's run), raising the run's error.
[[cpp11::register]] SEXP ffi_buffer_await(SEXP buffer) {
  return pjrt::call_core([&]() -> SEXP {
    (void)pjrt::unwrap_buffer(buffer);
    return R_NilValue;
  });
}

[[cpp11::register]] SEXP ffi_buffer_address(SEXP buffer) {
  return pjrt::call_core([&] {
    char text[32];
    std::snprintf(text, sizeof text, "%p", pjrt::unwrap_buffer(buffer).data());
    return std::string(text);
  });
}

namespace {

// A copy of the values in R's column-major order; "integer64" class and dims are set by the
// caller. Returns the count of values R cannot tell from NA.
SEXP copy_values(const ndbuf::Tensor& tensor, int64_t* ambiguous) {
  const ndbuf::RVectorType type = ndbuf::r_vector_type_for(tensor.dtype());
  cpp11::sexp out = pjrt::allocate_output_vector(sexptype_for(type), tensor.numel());
  *ambiguous = ndbuf::tensor_to_r(tensor, pjrt::vector_data(out), ndbuf::Order::kColumnMajor);
  // Through cpp11::safe: an allocation error must not jump over C++ destructors.
  if (type == ndbuf::RVectorType::kInteger64) {
    cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString]("integer64"));
  }
  return out;
}

// INT_MIN values of an i32 view, counted once per PJRTBuffer: buffers never change, so the
// count is kept in the external pointer's protected field (unused while the buffer lives).
int64_t int_min_count(SEXP buffer, const ndbuf::Tensor& tensor) {
  const SEXP cached = R_ExternalPtrProtected(buffer);
  if (TYPEOF(cached) == REALSXP && Rf_xlength(cached) == 1) {
    return static_cast<int64_t>(REAL_RO(cached)[0]);
  }
  const ndbuf::RVectorView values{ndbuf::RVectorType::kInteger, tensor.data(), tensor.numel()};
  const int64_t count = ndbuf::scan_missing(values).count;
  R_SetExternalPtrProtected(buffer, cpp11::safe[Rf_ScalarReal](static_cast<double>(count)));
  return count;
}

// Option pjrt.altrep read as isTRUE() reads it, unset meaning TRUE. Read here rather than in
// R: getOption() alone was a third of a small as_array() call.
bool views_enabled() {
  static SEXP const option = Rf_install("pjrt.altrep");
  SEXP value = Rf_GetOption1(option);
  return Rf_isNull(value) ||
         (TYPEOF(value) == LGLSXP && Rf_xlength(value) == 1 && LOGICAL_ELT(value, 0) == TRUE);
}

// The values in R's column-major order, with dims set here so that the (possibly huge) vector
// is never duplicated by an attribute change in R. With `view`, f64 and i32 buffers in R's
// memory order come back as read-only views of the buffer's memory (r_altrep.h); values R
// cannot tell from NA are counted as with_na_count() says, for a view only when `count`.
SEXP buffer_values(SEXP buffer, bool view, bool count) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
    int64_t ambiguous = 0;
    cpp11::sexp out;
    if (view && pjrt::can_view(tensor)) {
      if (count && tensor.dtype() == ndbuf::DType::kI32) ambiguous = int_min_count(buffer, tensor);
      out = pjrt::view_vector(tensor);
    } else {
      out = copy_values(tensor, &ambiguous);
    }
    if (tensor.rank() > 0) {
      cpp11::safe[Rf_setAttrib](out, R_DimSymbol, pjrt::shape_to_r(tensor.shape()));
    }
    reads.done();
    return pjrt::with_na_count(out, ambiguous);
  });
}

}  // namespace

// A view where option pjrt.altrep allows one and the buffer can be viewed, else a copy.
[[cpp11::register]] SEXP ffi_buffer_values(SEXP buffer, bool count) {
  return buffer_values(buffer, views_enabled(), count);
}

[[cpp11::register]] SEXP ffi_buffer_to_raw(SEXP buffer, bool row_major) {
  return pjrt::call_core([&]() -> cpp11::raws {
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor& tensor = pjrt::unwrap_buffer(buffer);
    cpp11::writable::raws out(
        pjrt::allocate_output_vector(RAWSXP, static_cast<R_xlen_t>(tensor.nbytes())));
    ndbuf::copy_to_dense(tensor, RAW(out),
                         row_major ? ndbuf::Order::kRowMajor : ndbuf::Order::kColumnMajor);
    reads.done();
    return out;
  });
}
