// Bindings of harmonium's HArray: an external pointer (class "HArray", see r_object.h) to a
// heap-allocated ndbuf::HArray. Each binding unwraps, calls one core function and wraps.
#include <cpp11.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ndbuf/convert/convert.hpp"
#include "ndbuf/format/format_nested.hpp"
#include "ndbuf/harray/compare.hpp"
#include "ndbuf/harray/harray.hpp"
#include "r_tensor.h"

namespace {

// Set as the protected value of an invalidated pointer. A pointer restored by readRDS() is
// cleared too but carries no mark, so its error can say why it has no memory.
const char* kInvalidatedMark = "pjrt_invalidated";

const char* harray_cleared_message(SEXP mark) {
  if (pjrt::has_mark(mark, kInvalidatedMark)) {
    return "This external pointer is already consumed or deleted";
  }
  return "This HArray was serialized (saveRDS(), save() or a parallel worker) and "
         "restored: its memory did not travel with it. Serialize `h$collect()` instead "
         "and make a new HArray from the values.";
}

const pjrt::ObjectClass kHArray{"HArray", "Expected an HArray.", harray_cleared_message};

SEXP wrap_harray(ndbuf::HArray harray) { return pjrt::wrap_object(kHArray, std::move(harray)); }

const ndbuf::HArray& unwrap_harray(SEXP x) {
  const auto& harray = pjrt::unwrap_object<ndbuf::HArray>(x, kHArray);
  ndbuf::check_mapping_intact(harray.tensor().storage()->data());
  return harray;
}

}  // namespace

[[cpp11::register]] SEXP ffi_harray_from_buffer(SEXP buffer) {
  return pjrt::call_core(
      [&] { return wrap_harray(ndbuf::HArray::from_buffer(pjrt::unwrap_buffer(buffer))); });
}

namespace {

// The dtype of an HDataType (a string of class "HDataType" naming a row of the dtype table)
// whose values come from R vectors of type `kind`; none for anything else.
std::optional<ndbuf::DType> harray_values_dtype(SEXP dtype, int kind) {
  if (TYPEOF(dtype) != STRSXP || Rf_xlength(dtype) != 1 || !Rf_inherits(dtype, "HDataType")) {
    return std::nullopt;
  }
  const std::string_view name = CHAR(STRING_ELT(dtype, 0));
  for (const ndbuf::DTypeInfo& info : ndbuf::kDTypeTable) {
    if (info.harray.empty() || info.harray != name) continue;
    const bool complex = ndbuf::is_complex(info.dtype);
    if (kind == (complex ? CPLXSXP : REALSXP)) return info.dtype;
  }
  return std::nullopt;
}

}  // namespace

// HArray$new_from_values()'s common call, checked here instead of in R: a double (not
// integer64) or complex array and an HDataType of that kind. NULL for anything else, which
// the R layer then checks and words.
[[cpp11::register]] SEXP ffi_harray_from_values_common(SEXP arr, SEXP dtype) {
  return pjrt::call_core([&]() -> SEXP {
    const SEXP dims = Rf_getAttrib(arr, R_DimSymbol);
    const std::optional<ndbuf::DType> type = harray_values_dtype(dtype, TYPEOF(arr));
    if (TYPEOF(dims) != INTSXP || !type || Rf_inherits(arr, "integer64")) return R_NilValue;
    ndbuf::BufferFromR made =
        pjrt::buffer_from_vector(arr, false, *type, pjrt::shape_from_r(dims),
                                 ndbuf::MissingCheck::kIgnore, ndbuf::resolve_device(""));
    return wrap_harray(ndbuf::HArray::from_buffer(made.tensor));
  });
}

[[cpp11::register]] SEXP ffi_harray_to_buffer(SEXP x) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    ndbuf::Tensor buffer = unwrap_harray(x).to_buffer();
    reads.done();
    return pjrt::wrap_buffer(std::move(buffer));
  });
}

[[cpp11::register]] SEXP ffi_harray_dtype(SEXP x) {
  return pjrt::call_core(
      [&] { return std::string(ndbuf::dtype_name(unwrap_harray(x).tensor().dtype())); });
}

[[cpp11::register]] SEXP ffi_harray_shape(SEXP x) {
  return pjrt::call_core([&] { return pjrt::shape_to_r(unwrap_harray(x).tensor().shape()); });
}

[[cpp11::register]] SEXP ffi_harray_len(SEXP x) {
  return pjrt::call_core([&] { return static_cast<double>(unwrap_harray(x).tensor().numel()); });
}

// `range` is validated in R: a list of integer vectors of length 1 or 3, one per axis.
[[cpp11::register]] SEXP ffi_harray_slice(SEXP x, cpp11::list range) {
  return pjrt::call_core([&] {
    const ndbuf::HArray& harray = unwrap_harray(x);
    ndbuf::SliceSpec spec;
    for (R_xlen_t k = 0; k < range.size(); ++k) {
      const cpp11::integers part(range[k]);
      spec.push_back(ndbuf::parse_axis_slice(cpp11::safe[INTEGER_RO](part),
                                             static_cast<size_t>(part.size()), NA_INTEGER,
                                             static_cast<size_t>(k)));
    }
    return wrap_harray(harray.slice(spec));
  });
}

[[cpp11::register]] SEXP ffi_harray_clone(SEXP x) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    ndbuf::HArray clone = unwrap_harray(x).clone();
    reads.done();
    return wrap_harray(std::move(clone));
  });
}

[[cpp11::register]] SEXP ffi_harray_format(SEXP x) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    std::string text = ndbuf::format_nested(unwrap_harray(x).tensor());
    reads.done();
    return text;
  });
}

[[cpp11::register]] SEXP ffi_harray_equal(SEXP x, SEXP y) {
  return pjrt::call_core([&] {
    const pjrt::MappedReadCheck reads;
    const bool equal = ndbuf::tensors_equal(unwrap_harray(x).tensor(), unwrap_harray(y).tensor());
    reads.done();
    return equal;
  });
}

// A double or complex vector in R's order for dim = rev(shape): the HArray's C order.
[[cpp11::register]] SEXP ffi_harray_collect(SEXP x) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor& tensor = unwrap_harray(x).tensor();
    const bool complex = ndbuf::is_complex(tensor.dtype());
    cpp11::sexp out = pjrt::allocate_output_vector(complex ? CPLXSXP : REALSXP, tensor.numel());
    ndbuf::copy_to_r_row_major(tensor, pjrt::vector_data(out));
    if (tensor.rank() > 0) {
      const ndbuf::Shape dims(tensor.shape().rbegin(), tensor.shape().rend());
      cpp11::safe[Rf_setAttrib](out, R_DimSymbol, pjrt::shape_to_r(dims));
    }
    reads.done();
    return out;
  });
}

[[cpp11::register]] SEXP ffi_harray_mem_address(SEXP x) {
  return pjrt::call_core([&] { return unwrap_harray(x).mem_address(); });
}

[[cpp11::register]] SEXP ffi_harray_is_standard_layout(SEXP x) {
  return pjrt::call_core([&] { return unwrap_harray(x).is_standard_layout(); });
}

[[cpp11::register]] SEXP ffi_harray_is_unique(SEXP x) {
  return pjrt::call_core([&] { return unwrap_harray(x).is_unique(); });
}

// Releases this object's share now; later calls on it see a cleared pointer.
[[cpp11::register]] SEXP ffi_harray_invalidate(SEXP x) {
  return pjrt::call_core([&] {
    unwrap_harray(x);
    pjrt::invalidate_object<ndbuf::HArray>(x, kHArray, kInvalidatedMark);
  });
}
