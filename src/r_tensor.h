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
// Frees a PJRTBuffer's tensor now and marks it donated: every later use is the error "called
// on deleted or donated buffer". Releasing an already released buffer does nothing.
void release_donated_buffer(SEXP x);

}  // namespace pjrt
