// chlo.mulhi: the high half of the double-width product of two integers of one type.
#pragma once

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// Operands of one integer dtype (not pred) and shape; the result is a new dense row-major
// tensor of that dtype: (wide(lhs) * wide(rhs)) >> bits, signed or unsigned as the dtype.
Tensor mulhi(const Tensor& lhs, const Tensor& rhs);

}  // namespace ndbuf::program
