// How ndbuf tensors cross into R: a PJRTBuffer is an external pointer to a heap-allocated
// ndbuf::Tensor (which shares its storage through std::shared_ptr) with class "PJRTBuffer".
#pragma once

#include <cpp11.hpp>

#include "ndbuf/tensor.hpp"

namespace pjrt {

// Wraps a tensor as a PJRTBuffer; the finalizer frees the tensor when R collects it.
SEXP wrap_buffer(ndbuf::Tensor tensor);
// The tensor behind a PJRTBuffer; an R error for anything else or a cleared pointer.
const ndbuf::Tensor& unwrap_buffer(SEXP x);

}  // namespace pjrt
