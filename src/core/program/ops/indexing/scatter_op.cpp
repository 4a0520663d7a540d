// stablehlo.scatter over ops/indexing/scatter.hpp: the type rule checks the spec's constraints
// between the inputs, the indices, the updates, the dimension numbers (#stablehlo.scatter<...>,
// index_dims.hpp) and the update body's signature; the builder runs the body natively when it
// is a recognised one, as an element program when it compiles to one, else interpreted.
#include <vector>

#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/indexing/index_dims.hpp"
#include "program/ops/indexing/scatter.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

using Dims = std::vector<int64_t>;

// The spec's constraints between the inputs', the indices' and the updates' shapes and the
// dimension numbers (C2, C4, C8 to C22), in the scatter kernel's words.
void check_scatter_dims(const Shape& input, const Shape& indices, const Shape& updates,
                        const ScatterDimensions& dims) {
  const Dims window_input = plan_scatter(input, indices, updates, dims).window_input_dims;
  const char* const kOp = "scatter";
  for (size_t j = 0; j < window_input.size(); ++j) {
    const int64_t size = updates[dims.update_window_dims[j]];
    if (size > input[window_input[j]]) {
      kernel_error(kOp, "update window dim " + std::to_string(dims.update_window_dims[j]) +
                            " has size " + std::to_string(size) + ", more than input dim " +
                            std::to_string(window_input[j]) + " holds (" +
                            std::to_string(input[window_input[j]]) + ").");
    }
  }
}

// Every input of one shape, every update of one shape, integer indices (C1, C3).
void check_scatter_operands(const Op& op, size_t n) {
  const Type& indices = operand_tensor(op, n);
  if (!is_integer(indices.dtype)) {
    op_error(op, "scatter indices " + type_to_string(indices) + " must be integers");
  }
  for (size_t k = 1; k < n; ++k) {
    if (operand_tensor(op, k).shape != operand_tensor(op, 0).shape) {
      op_error(op, "inputs must share one shape");
    }
    if (operand_tensor(op, n + 1 + k).shape != operand_tensor(op, n + 1).shape) {
      op_error(op, "updates must share one shape");
    }
  }
}

}  // namespace

void scatter_types(const Op& op, const Module&) {
  const size_t n = op.operands.empty() ? 0 : (op.operands.size() - 1) / 2;
  if (n == 0 || op.operands.size() != 2 * n + 1 || op.result_types.size() != n ||
      op.regions.size() != 1) {
    op_error(op, "needs N inputs, indices, N updates, N results and one region");
  }
  const ScatterDimensions dims = scatter_dimensions(op);
  std::vector<DType> inputs;
  for (size_t k = 0; k < n; ++k) {
    if (result_tensor(op, k) != operand_tensor(op, k)) {
      op_error(op, "results must have the input types");
    }
    inputs.push_back(operand_tensor(op, k).dtype);
  }
  // The body takes (current values..., updates...) and returns the new values.
  std::vector<DType> args = inputs;
  for (size_t k = 0; k < n; ++k) args.push_back(operand_tensor(op, n + 1 + k).dtype);
  expect_region_args(op, op.regions[0], scalar_types(args));
  expect_region_returns(op, op.regions[0], scalar_types(inputs));
  check_scatter_operands(op, n);
  at_op(op, [&] {
    check_scatter_dims(operand_tensor(op, 0).shape, operand_tensor(op, n).shape,
                       operand_tensor(op, n + 1).shape, dims);
    return 0;
  });
}

// scatter_types has checked the operands, the dimension numbers and the body's signature.
OpFn build_scatter(const Op& op, const Planning& planning) {
  const size_t n = (op.operands.size() - 1) / 2;
  const ScatterDimensions dims = scatter_dimensions(op);
  const BodyCall body = body_call(op.regions[0], planning, n == 1);
  return [n, dims, body](Interpreter& in, const Values& a) {
    return values_of(scatter(tensors_of(a, 0, n), a[n].get(), tensors_of(a, n + 1, n), dims,
                             body.fn(in), body.fast));
  };
}

}  // namespace ndbuf::program
