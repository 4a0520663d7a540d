// Read-only ALTREP vectors over a buffer's host memory (as_array() without a copy).
#pragma once

#include <cpp11.hpp>

#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace pjrt {

// Registers the double and integer view classes; called once from the package's init.
void register_altrep_classes(DllInfo* dll);

// Whether as_array() can return `tensor` as a view: an f64 or i32 tensor in host memory that
// ndbuf or R owns (not a mapped file, which can change underneath), non-empty, dense in R's
// column-major order.
bool can_view(const ndbuf::Tensor& tensor);

// A double (f64) or integer (i32) vector reading the tensor's memory and holding its storage
// alive; R copies it on the first write, duplicate or serialize. Requires can_view(tensor).
SEXP view_vector(const ndbuf::Tensor& tensor);

// Whether `x` is such a view (copied or not).
bool is_view(SEXP x);

}  // namespace pjrt
