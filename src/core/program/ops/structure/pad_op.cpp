// stablehlo.pad: the operand with edge padding (negative: cropping) and interior padding
// between elements, filled with a 0-d value. The type rule checks the amounts and infers the
// result shape (sizes overflow-checked); the builder binds the kernel.
#include <cstdlib>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

namespace {

// low + high + n + (n - 1) * interior, each step overflow-checked (n may be near 2^62).
int64_t padded_size(const Op& op, size_t k, int64_t n, int64_t low, int64_t high,
                    int64_t interior) {
  constexpr int64_t kWild = int64_t{1} << 40;
  if (std::abs(low) > kWild || std::abs(high) > kWild || interior < 0 || interior > kWild) {
    op_error(op, "padding of axis " + std::to_string(k) + " is out of range");
  }
  int64_t holes = 0;
  int64_t size = 0;
  const bool fits = checked_mul(n > 0 ? n - 1 : 0, interior, &holes) &&
                    checked_add(n, holes, &size) && checked_add(size, low, &size) &&
                    checked_add(size, high, &size);
  if (!fits) {
    op_error(op,
             "padding makes axis " + std::to_string(k) + " larger than a 64-bit integer can hold");
  }
  if (size < 0) op_error(op, "padding makes axis " + std::to_string(k) + " negative");
  return size;
}

}  // namespace

void pad_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& in = operand_tensor(op, 0);
  const Type& value = operand_tensor(op, 1);
  if (!value.shape.empty() || value.dtype != in.dtype) {
    op_error(op, "padding value must be a 0-d tensor of the operand's element type");
  }
  const Dims low = attr_ints(op, "edge_padding_low");
  const Dims high = attr_ints(op, "edge_padding_high");
  const Dims interior = attr_ints(op, "interior_padding");
  const size_t rank = in.shape.size();
  if (low.size() != rank || high.size() != rank || interior.size() != rank) {
    op_error(op, "needs low, high and interior padding for every axis");
  }
  Shape shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    shape[k] = padded_size(op, k, in.shape[k], low[k], high[k], interior[k]);
  }
  expect_result_type(op, 0, in.dtype, shape);
}

// pad_types has checked the amounts and the result shape.
OpFn build_pad(const Op& op, const Planning&) {
  const Dims low = attr_ints(op, "edge_padding_low");
  const Dims high = attr_ints(op, "edge_padding_high");
  const Dims interior = attr_ints(op, "interior_padding");
  return tensor_fn([low, high, interior](const Values& a) {
    return pad(a[0].get(), a[1].get(), low, high, interior);
  });
}

}  // namespace ndbuf::program
