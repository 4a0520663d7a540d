// Region bodies as the kernels receive them, and the bodies they recognise and run natively.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// A region called with 0-d host tensors; returns its results as 0-d tensors. The kernels check
// the count and dtypes of what it returns.
using RegionFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// A two-argument combining body the executor recognised (body(a, b) = a OP b on one operand):
// the kernel then never calls the region. kReplace is a body that returns its second argument
// (scatter's "set"). On pred, add is OR and multiply is AND, as in the element-wise ops.
enum class FastBody : uint8_t { kNone, kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr, kReplace };

// A comparator region the executor recognised: `compare DIRECTION, %arg0, %arg1, TYPE` returned
// as is, where %arg0 and %arg1 are the two elements of the first operand. total_order is true
// for compare type TOTALORDER (floats: -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN);
// otherwise floats compare as IEEE (every comparison with NaN is false) and complex numbers
// lexicographically on (real, imag).
enum class ComparatorOrder : uint8_t { kNone, kLessThan, kLessEqual, kGreaterThan, kGreaterEqual };
struct FastComparator {
  ComparatorOrder direction = ComparatorOrder::kNone;
  bool total_order = false;
};

}  // namespace ndbuf::program
