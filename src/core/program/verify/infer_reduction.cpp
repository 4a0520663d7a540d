// Type rules of reduce, reduce_window, select_and_scatter, sort and chlo.top_k: the result
// shapes inferred from the dimensions and windows, the bodies' signatures from the operands.
#include <algorithm>

#include "program/exec/attr_access.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/kernels/reduce_window.hpp"
#include "program/kernels/top_k.hpp"
#include "program/kernels/window_geometry.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// Variadic ops take N inputs then N 0-d init values and give N results, each of its init
// value's element type; the body takes (accumulators..., input elements...) and returns the
// accumulators. Returns N.
size_t split_variadic(const Op& op) {
  const size_t n = op.operands.size() / 2;
  if (n == 0 || op.operands.size() != 2 * n || op.result_types.size() != n ||
      op.regions.size() != 1) {
    op_error(op, "needs N inputs, N init values, N results and one region");
  }
  std::vector<DType> inits;
  for (size_t k = 0; k < n; ++k) {
    const Type& init = operand_tensor(op, n + k);
    if (!init.shape.empty()) {
      op_error(op, "init value " + std::to_string(k + 1) + " " + type_to_string(init) +
                       " must be a 0-d tensor");
    }
    inits.push_back(init.dtype);
  }
  std::vector<DType> args = inits;
  for (size_t k = 0; k < n; ++k) args.push_back(operand_tensor(op, k).dtype);
  expect_region_args(op, op.regions[0], scalar_types(args));
  expect_region_returns(op, op.regions[0], scalar_types(inits));
  return n;
}

void expect_variadic_results(const Op& op, size_t n, const Shape& shape) {
  for (size_t k = 0; k < n; ++k) expect_result_type(op, k, operand_tensor(op, n + k).dtype, shape);
}

void reduce_types(const Op& op, const Module&) {
  const size_t n = split_variadic(op);
  const std::vector<int64_t> dims = attr_ints(op, "dimensions");
  const Type& in = operand_tensor(op, 0);
  check_axes(op, "dimension", dims, static_cast<int64_t>(in.shape.size()), true);
  Shape shape;
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end()) {
      shape.push_back(in.shape[k]);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape || result_tensor(op, k).shape != shape) {
      op_error(op,
               "inputs must share one shape and results must have shape " + shape_to_tuple(shape));
    }
  }
  expect_variadic_results(op, n, shape);
}

WindowConfig window_config(const Op& op, size_t rank) {
  WindowConfig w;
  w.window_dimensions = attr_ints(op, "window_dimensions");
  w.window_strides = attr_ints_or(op, "window_strides", std::vector<int64_t>(rank, 1));
  w.base_dilations = attr_ints_or(op, "base_dilations", std::vector<int64_t>(rank, 1));
  w.window_dilations = attr_ints_or(op, "window_dilations", std::vector<int64_t>(rank, 1));
  w.padding = attr_padding(op, "padding", rank);
  return w;
}

void reduce_window_types(const Op& op, const Module&) {
  const size_t n = split_variadic(op);
  const Type& in = operand_tensor(op, 0);
  const WindowConfig w = window_config(op, in.shape.size());
  const Shape shape = at_op(op, [&] { return reduce_window_shape(in.shape, w); });
  for (size_t k = 0; k < n; ++k) {
    if (operand_tensor(op, k).shape != in.shape) op_error(op, "inputs must share one shape");
    if (result_tensor(op, k).shape != shape) {
      op_error(op, "results must have shape " + shape_to_tuple(shape));
    }
  }
  expect_variadic_results(op, n, shape);
}

// Windows are not dilated here, and the source holds one element per window; select takes
// two operand elements, scatter (result element, source element).
void select_and_scatter_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  if (op.regions.size() != 2) op_error(op, "needs a select and a scatter region");
  const Type& in = operand_tensor(op, 0);
  const WindowConfig w = window_config(op, in.shape.size());
  const Type& source = operand_tensor(op, 1);
  const Type& init = operand_tensor(op, 2);
  if (!init.shape.empty()) op_error(op, "init value " + type_to_string(init) + " must be 0-d");
  if (source.dtype != in.dtype) {
    op_error(op, "source " + type_to_string(source) + " must have the element type of operand " +
                     type_to_string(in));
  }
  const Shape windows = at_op(op, [&] {
    for (int64_t d : w.base_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "base dilations must be 1.");
    }
    for (int64_t d : w.window_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "window dilations must be 1.");
    }
    return window_geometry(in.shape, w, "select_and_scatter").result_shape;
  });
  if (source.shape != windows) {
    op_error(op, "source " + type_to_string(source) + " should have shape " +
                     shape_to_tuple(windows) + ", one element per window");
  }
  expect_result_type(op, 0, init.dtype, in.shape);
  const Type element = Type::tensor(in.dtype, {});
  const Type result = Type::tensor(init.dtype, {});
  expect_region_args(op, op.regions[0], {element, element});
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_args(op, op.regions[1], {result, element});
  expect_region_returns(op, op.regions[1], {result});
}

// Results are the operands' types; the comparator takes two 0-d elements of each operand.
void sort_types(const Op& op, const Module&) {
  if (op.operands.empty() || op.regions.size() != 1 || op.result_types != op.operand_types) {
    op_error(op, "needs operands, one comparator region and results of the operand types");
  }
  const Type& first = operand_tensor(op, 0);
  const auto rank = static_cast<int64_t>(first.shape.size());
  int64_t dim = attr_int_or(op, "dimension", -1);
  if (dim < 0) dim += rank;
  check_axes(op, "dimension", {dim}, std::max<int64_t>(rank, 1), false);
  attr_bool_or(op, "is_stable", false);
  std::vector<DType> pairs;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    if (operand_tensor(op, k).shape != first.shape) {
      op_error(op, "operands must all have one shape");
    }
    pairs.insert(pairs.end(), 2, operand_tensor(op, k).dtype);
  }
  expect_region_args(op, op.regions[0], scalar_types(pairs));
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
}

void top_k_types(const Op& op, const Module&) {
  expect_counts(op, 1, 2);
  const Type& in = operand_tensor(op, 0);
  const int64_t k = attr_int(op, "k");
  if (in.shape.empty() || k < 0 || k > in.shape.back()) {
    op_error(op, "k = " + std::to_string(k) + " does not fit the last axis");
  }
  const Shape shape = at_op(op, [&] { return top_k_shape(in.shape, in.dtype, k); });
  expect_result_type(op, 0, in.dtype, shape);
  expect_result_type(op, 1, DType::kI32, shape);
}

}  // namespace

std::vector<TypeRuleEntry> reduction_type_rules() {
  return {
      {"stablehlo.reduce", reduce_types},
      {"stablehlo.reduce_window", reduce_window_types},
      {"stablehlo.select_and_scatter", select_and_scatter_types},
      {"stablehlo.sort", sort_types},
      {"chlo.top_k", top_k_types},
  };
}

}  // namespace ndbuf::program
