// Bindings of harmonium's HArray: an external pointer (class "HArray") to a heap-allocated
// ndbuf::HArray. Each binding unwraps, calls one core function and wraps the result.
#include <cpp11.hpp>
#include <memory>
#include <vector>

#include "ndbuf/convert/convert.hpp"
#include "ndbuf/format/format_nested.hpp"
#include "ndbuf/harray/compare.hpp"
#include "ndbuf/harray/harray.hpp"
#include "r_tensor.h"

namespace {

const char* kHArrayClass = "HArray";
// Set as the protected value of an invalidated pointer. A pointer restored by readRDS() is
// cleared too but carries no mark, so its error can say why it has no memory.
const char* kInvalidatedMark = "pjrt_invalidated";

void finalize_harray(SEXP ptr) {
  delete static_cast<ndbuf::HArray*>(R_ExternalPtrAddr(ptr));
  R_ClearExternalPtr(ptr);
}

SEXP wrap_harray(ndbuf::HArray harray) {
  auto owned = std::make_unique<ndbuf::HArray>(std::move(harray));
  // The tag says what the address points to: the class attribute alone can be changed in R.
  // Through cpp11::safe: an allocation error must not jump over `owned`'s destructor.
  const cpp11::sexp out = cpp11::safe[R_MakeExternalPtr](
      owned.get(), cpp11::safe[Rf_install](kHArrayClass), R_NilValue);
  cpp11::safe[R_RegisterCFinalizerEx](out, finalize_harray, TRUE);
  owned.release();
  cpp11::safe[Rf_setAttrib](out, R_ClassSymbol, cpp11::safe[Rf_mkString](kHArrayClass));
  return out;
}

const ndbuf::HArray& unwrap_harray(SEXP x) {
  if (TYPEOF(x) != EXTPTRSXP || !Rf_inherits(x, kHArrayClass)) {
    cpp11::stop("%s", "Expected an HArray.");
  }
  const auto* harray = static_cast<const ndbuf::HArray*>(R_ExternalPtrAddr(x));
  if (harray == nullptr && R_ExternalPtrProtected(x) == Rf_install(kInvalidatedMark)) {
    cpp11::stop("%s", "This external pointer is already consumed or deleted");
  }
  if (harray == nullptr) {
    cpp11::stop("%s",
                "This HArray was serialized (saveRDS(), save() or a parallel worker) and "
                "restored: its memory did not travel with it. Serialize `h$collect()` instead "
                "and make a new HArray from the values.");
  }
  // An external pointer of another kind (a PJRTBuffer) given the class in R.
  if (R_ExternalPtrTag(x) != Rf_install(kHArrayClass)) cpp11::stop("%s", "Expected an HArray.");
  ndbuf::check_mapping_intact(harray->tensor().storage()->data());
  return *harray;
}

cpp11::integers shape_integers(const ndbuf::Shape& shape) {
  cpp11::writable::integers out(static_cast<R_xlen_t>(shape.size()));
  for (size_t k = 0; k < shape.size(); ++k) out[k] = static_cast<int>(shape[k]);
  return out;
}

}  // namespace

[[cpp11::register]] SEXP ffi_harray_from_buffer(SEXP buffer) {
  return wrap_harray(ndbuf::HArray::from_buffer(pjrt::unwrap_buffer(buffer)));
}

[[cpp11::register]] SEXP ffi_harray_to_buffer(SEXP x) {
  const pjrt::MappedReadCheck reads;
  ndbuf::Tensor buffer = unwrap_harray(x).to_buffer();
  reads.done();
  return pjrt::wrap_buffer(std::move(buffer));
}

[[cpp11::register]] std::string ffi_harray_dtype(SEXP x) {
  return std::string(ndbuf::dtype_name(unwrap_harray(x).tensor().dtype()));
}

[[cpp11::register]] cpp11::integers ffi_harray_shape(SEXP x) {
  return shape_integers(unwrap_harray(x).tensor().shape());
}

[[cpp11::register]] double ffi_harray_len(SEXP x) {
  return static_cast<double>(unwrap_harray(x).tensor().numel());
}

// `range` is validated in R: a list of integer vectors of length 1 or 3, one per axis.
[[cpp11::register]] SEXP ffi_harray_slice(SEXP x, cpp11::list range) {
  const ndbuf::HArray& harray = unwrap_harray(x);
  ndbuf::SliceSpec spec;
  for (R_xlen_t k = 0; k < range.size(); ++k) {
    const cpp11::integers part(range[k]);
    spec.push_back(ndbuf::parse_axis_slice(INTEGER(part), static_cast<size_t>(part.size()),
                                           NA_INTEGER, static_cast<size_t>(k)));
  }
  return wrap_harray(harray.slice(spec));
}

[[cpp11::register]] SEXP ffi_harray_clone(SEXP x) {
  const pjrt::MappedReadCheck reads;
  ndbuf::HArray clone = unwrap_harray(x).clone();
  reads.done();
  return wrap_harray(std::move(clone));
}

[[cpp11::register]] std::string ffi_harray_format(SEXP x) {
  const pjrt::MappedReadCheck reads;
  std::string text = ndbuf::format_nested(unwrap_harray(x).tensor());
  reads.done();
  return text;
}

[[cpp11::register]] bool ffi_harray_equal(SEXP x, SEXP y) {
  const pjrt::MappedReadCheck reads;
  const bool equal = ndbuf::tensors_equal(unwrap_harray(x).tensor(), unwrap_harray(y).tensor());
  reads.done();
  return equal;
}

// A double or complex vector in R's order for dim = rev(shape): the HArray's C order.
[[cpp11::register]] SEXP ffi_harray_collect(SEXP x) {
  const pjrt::MappedReadCheck reads;
  const ndbuf::Tensor& tensor = unwrap_harray(x).tensor();
  const bool complex = ndbuf::is_complex(tensor.dtype());
  cpp11::sexp out = cpp11::safe[Rf_allocVector](complex ? CPLXSXP : REALSXP, tensor.numel());
  ndbuf::copy_to_r_row_major(tensor, cpp11::safe[DATAPTR](out));
  if (tensor.rank() > 0) {
    const ndbuf::Shape dims(tensor.shape().rbegin(), tensor.shape().rend());
    cpp11::safe[Rf_setAttrib](out, R_DimSymbol, shape_integers(dims));
  }
  reads.done();
  return out;
}

[[cpp11::register]] std::string ffi_harray_mem_address(SEXP x) {
  return unwrap_harray(x).mem_address();
}

[[cpp11::register]] bool ffi_harray_is_standard_layout(SEXP x) {
  return unwrap_harray(x).is_standard_layout();
}

[[cpp11::register]] bool ffi_harray_is_unique(SEXP x) { return unwrap_harray(x).is_unique(); }

// Releases this object's share now; later calls on it see a cleared pointer.
[[cpp11::register]] void ffi_harray_invalidate(SEXP x) {
  unwrap_harray(x);
  finalize_harray(x);
  R_SetExternalPtrProtected(x, Rf_install(kInvalidatedMark));
}
