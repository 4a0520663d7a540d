// stablehlo.gather over ops/indexing/gather.hpp: the dimension numbers (#stablehlo.gather<...>,
// index_dims.hpp) and slice sizes, the type rule's result shape, the builder's kernel.
#include <vector>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/indexing/gather.hpp"
#include "program/ops/indexing/index_dims.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void gather_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const GatherDimensions dims = gather_dimensions(op);
  const std::vector<int64_t> sizes = attr_ints(op, "slice_sizes");
  const Shape shape = at_op(op, [&] {
    Shape result =
        gather_shape(operand_tensor(op, 0).shape, operand_tensor(op, 1).shape, dims, sizes);
    check_collapsed_slices(dims, sizes, result);
    return result;
  });
  expect_result_type(op, 0, operand_tensor(op, 0).dtype, shape);
}

// gather_types has checked the dimension numbers and the slice sizes against the operands.
OpFn build_gather(const Op& op, const Planning&) {
  const GatherDimensions dims = gather_dimensions(op);
  const std::vector<int64_t> sizes = attr_ints(op, "slice_sizes");
  return tensor_fn(
      [dims, sizes](const Values& a) { return gather(a[0].get(), a[1].get(), dims, sizes); });
}

}  // namespace ndbuf::program
