// Element-wise equality of two tensors, as HArray's eq()/`==` defines it: same dtype, same
// shape and every pair of elements equal under IEEE rules (NaN never equals anything, 0 equals
// -0; complex values compare both parts). Layouts do not matter: a strided view equals a dense
// tensor with the same elements.
#pragma once

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// Tensors on another device are read through to_host().
bool tensors_equal(const Tensor& a, const Tensor& b);

}  // namespace ndbuf
